#!/usr/bin/env bash
# `make test-wheels`: tests/deploy/test_wheel.py once per CPython version found on this machine, so each version's
# wheel is built (scripts/build_wheel.sh), installed into a fresh venv without build tools and run. An interpreter
# is looked for as python3.X on PATH, then under pyenv ($PYENV_ROOT/versions/3.X.*); a version with none is
# reported as not checked, with that reason, never as passed.
#
#   bash scripts/check_wheels.sh              # 3.10 to 3.14
#   bash scripts/check_wheels.sh 3.13 3.10    # the versions named
#
# Each interpreter gets a venv of its own in build/tools/wheel-check-3.X with pytest and the build backend (the
# sdist test builds without isolation, as `make test` does with the .venv).
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
TOOLS="${SLIPSTREAM_TOOLS_DIR:-$ROOT/build/tools}"
PYENV_ROOT="${PYENV_ROOT:-$HOME/.pyenv}"
BACKEND="pytest scikit-build-core==1.1.2 nanobind==3.1.0"   # the versions the .venv's editable install uses

# The first candidate that runs (a pyenv shim on PATH may name a version that is not selected, and fail).
find_python() {
  local version="$1" found
  for found in "$(command -v "python$version" 2>/dev/null)" "$PYENV_ROOT"/versions/"$version".*/bin/python"$version"; do
    [[ -x "$found" ]] && "$found" -c "" >/dev/null 2>&1 && { echo "$found"; return; }
  done
  return 1
}

versions=("$@")
[[ ${#versions[@]} -gt 0 ]] || versions=(3.10 3.11 3.12 3.13 3.14)
declare -A result
failed=0
for version in "${versions[@]}"; do
  if ! python="$(find_python "$version")"; then
    result[$version]="not checked: no python$version on PATH or under $PYENV_ROOT/versions"
    continue
  fi
  venv="$TOOLS/wheel-check-$version"
  if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c "import pytest, scikit_build_core, nanobind" 2>/dev/null; then
    echo "check_wheels: a venv for $python in $venv"
    "$python" -m venv --clear "$venv" || { result[$version]="failed: venv"; failed=1; continue; }
    # shellcheck disable=SC2086 # a list of requirements
    "$venv/bin/python" -m pip install -q --disable-pip-version-check $BACKEND ||
      { result[$version]="failed: pip install"; failed=1; continue; }
  fi
  echo "check_wheels: CPython $version ($python)"
  if "$venv/bin/python" -m pytest -q -p no:cacheprovider tests/deploy/test_wheel.py; then
    result[$version]="passed ($("$venv/bin/python" -c 'import platform; print(platform.python_version())'))"
  else
    result[$version]="failed"
    failed=1
  fi
done

echo "check_wheels: summary"
for version in "${versions[@]}"; do
  echo "  CPython $version: ${result[$version]}"
done
exit "$failed"
