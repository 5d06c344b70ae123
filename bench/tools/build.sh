#!/usr/bin/env bash
# Builds one of bench/tools' load generators into $1 (default build/bench/ws_load); the file name says which:
# .../ws_load from ws_load.cpp (WebSocket echo), .../http_paced from http_paced.cpp (open-loop HTTP/1.1).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/../../build/bench/ws_load}"
src="$here/$(basename "$out").cpp"
[ -f "$src" ] || { echo "build.sh: no source $src" >&2; exit 2; }
mkdir -p "$(dirname "$out")"
if [ -x "$out" ] && [ "$out" -nt "$src" ] && [ "$out" -nt "$here/load_common.h" ]; then exit 0; fi
${CXX:-g++} -std=c++20 -O2 -Wall -Wextra -Werror -o "$out.tmp" "$src"
mv "$out.tmp" "$out"
