#!/usr/bin/env bash
# Installs what the bench needs: load generators and static servers (Debian), Python peers (into .venv),
# and builds our load generators (bench/tools/ws_load.cpp and http_paced.cpp -> $SLIPSTREAM_BUILD_DIR/bench/).
# Idempotent, non-interactive, quick when everything is present. A package that fails to install is
# reported here and skipped by the harness (bench/run.py --list); it never stops the run.
set -uo pipefail
cd "$(dirname "$0")/.."

APT_REQUIRED=(wrk nginx h2o lighttpd nghttp2-client openssl g++)  # nghttp2-client: h2load and nghttp; openssl: the
                                                                   # TLS workloads' certificate; g++: ws_load
APT_OPTIONAL=(linux-perf)

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

missing=()
for p in "${APT_REQUIRED[@]}" "${APT_OPTIONAL[@]}"; do
  installed "$p" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bench/setup: installing ${missing[*]}"
  $SUDO apt-get update -qq || echo "bench/setup: apt-get update failed"
  for p in "${missing[@]}"; do
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$p" >/dev/null 2>&1 \
      || echo "bench/setup: could not install $p (contenders needing it will be reported as skipped)"
  done
fi

if [ ! -x .venv/bin/python ]; then
  echo "bench/setup: .venv missing, running scripts/setup.sh"
  bash scripts/setup.sh || { echo "bench/setup: scripts/setup.sh failed"; exit 1; }
fi

REQ=bench/requirements.txt
STAMP=.venv/.bench-requirements.stamp
if [ ! -f "$STAMP" ] || [ "$REQ" -nt "$STAMP" ]; then
  echo "bench/setup: installing Python packages from $REQ"
  failed=0
  while read -r line; do
    line="${line%%#*}"; line="$(echo "$line" | xargs)"
    [ -z "$line" ] && continue
    .venv/bin/python -m pip install -q --disable-pip-version-check "$line" >/dev/null 2>&1 \
      || { echo "bench/setup: could not install $line (reported as skipped by the harness)"; failed=1; }
  done < "$REQ"
  [ "$failed" -eq 0 ] && touch "$STAMP"
fi

# ws_load and http_paced: each rebuilt only when its source is newer than the binary.
WS_LOAD="${SLIPSTREAM_BUILD_DIR:-build}/bench/ws_load"
bash bench/tools/build.sh "$WS_LOAD" \
  || echo "bench/setup: could not build $WS_LOAD (the ws workload will be reported as failed)"
HTTP_PACED="${SLIPSTREAM_BUILD_DIR:-build}/bench/http_paced"
bash bench/tools/build.sh "$HTTP_PACED" \
  || echo "bench/setup: could not build $HTTP_PACED (the paced workload will be reported as failed)"
exit 0
