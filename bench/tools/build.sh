#!/usr/bin/env bash
# Builds bench/tools/ws_load.cpp (the WebSocket echo load generator) into $1 (default build/bench/ws_load).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../../build/bench/ws_load}"
mkdir -p "$(dirname "$out")"
if [ -x "$out" ] && [ "$out" -nt "$here/ws_load.cpp" ]; then exit 0; fi
${CXX:-g++} -std=c++20 -O2 -Wall -Wextra -Werror -o "$out.tmp" "$here/ws_load.cpp"
mv "$out.tmp" "$out"
