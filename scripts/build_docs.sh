#!/usr/bin/env bash
# `make docs`: the documentation site (mkdocs.yml) built with --strict into build/site, or into the folder given
# as the first argument. MkDocs, its Material theme and mkdocstrings come from PyPI into build/tools/docs-venv
# (pinned; reinstalled when the pins change). The CLI reference runs the repository's .venv (scripts/setup.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
OUT="${1:-$ROOT/build/site}"
TOOLS="${SLIPSTREAM_TOOLS_DIR:-$ROOT/build/tools}"
VENV="$TOOLS/docs-venv"
want="mkdocs==1.6.1 mkdocs-material==9.8.2 mkdocstrings==1.0.8 mkdocstrings-python==2.0.11"
if [[ ! -f "$VENV/.versions" || "$(cat "$VENV/.versions")" != "$want" ]]; then
  echo "build_docs: installing $want into $VENV"
  PY="$ROOT/.venv/bin/python"
  [[ -x "$PY" ]] || PY=python3
  "$PY" -m venv --clear "$VENV"
  # shellcheck disable=SC2086 # a list of requirements
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check $want
  echo "$want" > "$VENV/.versions"
fi

# SLIPSTREAM_DOCS_CONFIG: another configuration (the tests build a copy of the pages with a broken link).
NO_MKDOCS_2_WARNING=1 "$VENV/bin/mkdocs" build --strict --clean --site-dir "$OUT" \
  --config-file "${SLIPSTREAM_DOCS_CONFIG:-$ROOT/mkdocs.yml}"
echo "build_docs: $OUT/index.html"
