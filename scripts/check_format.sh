#!/usr/bin/env bash
# Fails when a tracked C++ file is not clang-formatted (.clang-format at the root).
set -euo pipefail
cd "$(dirname "$0")/.."
bad=()
while IFS= read -r f; do
  [ -f "$f" ] || continue
  clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.h')
if [ ${#bad[@]} -gt 0 ]; then
  echo "lint: not clang-formatted (run 'make format'):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "lint: format ok"
