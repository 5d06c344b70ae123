#!/usr/bin/env bash
# Installs what building and testing Slipstream needs: Debian -dev packages and a Python venv (.venv).
# Idempotent and quick when everything is present. Runs non-interactively (CI runs it as root).
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config clang clang-format lld libclang-rt-14-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libsimdjson-dev libre2-dev libssl-dev libnghttp2-dev zlib1g-dev libbrotli-dev libzstd-dev
  libsqlite3-dev libpq-dev liburing-dev
  libyaml-dev  # YAML capsule specs of the decision service (src/agent/decide)
  postgresql   # the throwaway clusters of the store tests (initdb, pg_ctl)
  libvalijson-dev rapidjson-dev nlohmann-json3-dev   # the schema comparison benchmark (bench/micro)
  curl python3 python3-venv python3-dev
  chromium   # the real browser of the /docs tests
  golang-go  # builds h2spec, the HTTP/2 conformance tester (scripts/setup_h2spec.sh)
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PY" -m venv .venv
fi
REQ=python/requirements-dev.txt
STAMP=.venv/.requirements.stamp
if [ ! -f "$STAMP" ] || [ "$REQ" -nt "$STAMP" ]; then
  echo "setup: installing Python packages from $REQ"
  .venv/bin/python -m pip install -q --disable-pip-version-check -r "$REQ"
  touch "$STAMP"
fi

# The Python package (editable): rebuilt when C++ or Python sources changed since the last install, or when the
# install points at another checkout (a .venv shared between worktrees: the stamp holds the checkout's path).
PKG_STAMP=.venv/.slipstream-package.stamp
if [ ! -f "$PKG_STAMP" ] || [ "$(cat "$PKG_STAMP")" != "$PWD" ] ||
   [ -n "$(find src include python pyproject.toml CMakeLists.txt cmake -newer "$PKG_STAMP" -type f -print -quit)" ]; then
  echo "setup: building the slipstream Python package"
  .venv/bin/python -m pip install -q --disable-pip-version-check --no-build-isolation -e .
  echo "$PWD" > "$PKG_STAMP"
fi

# h2spec for the HTTP/2 conformance tests (built once into build/tools).
bash scripts/setup_h2spec.sh >/dev/null
# The MCP conformance suite and the Node it needs (npm, once into build/tools); its test says so when it is missing.
bash scripts/setup_mcp_conformance.sh >/dev/null || echo "setup: the MCP conformance suite could not be installed"
