#!/usr/bin/env bash
# Runs every libFuzzer binary of a fuzz build for N seconds over its committed corpus (new finds go to a scratch dir).
set -euo pipefail
build=${1:-build-fuzz}
seconds=${2:-30}
cd "$(dirname "$0")/.."
status=0
for bin in $(find "$build" -maxdepth 5 -type f -name 'fuzz_*' -perm -u+x ! -name '*_replay'); do
  name=$(basename "$bin"); name=${name#fuzz_}
  scratch=$(mktemp -d)
  dict=()
  [ -f "fuzz/dict/$name.dict" ] && dict=(-dict="fuzz/dict/$name.dict")
  echo "fuzz: $name for ${seconds}s"
  "$bin" "$scratch" "fuzz/corpus/$name" -max_total_time="$seconds" -artifact_prefix=fuzz/artifacts/ "${dict[@]}" \
    2>&1 | tail -3 || status=1
  rm -rf "$scratch"
done
exit $status
