#!/usr/bin/env bash
# Builds h2spec (HTTP/2 conformance tester) from its public Go module into build/tools/h2spec.
# Needs the Go toolchain: /usr/local/go/bin/go when present, else Debian's golang-go (installed here when
# missing). The pytest in tests/e2e/test_http2.py finds the binary there (or $SLIPSTREAM_H2SPEC, or PATH).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${SLIPSTREAM_TOOLS_DIR:-$ROOT/build/tools}"
MODULE="github.com/summerwind/h2spec/cmd/h2spec"
VERSION="${H2SPEC_VERSION:-v2.2.1+incompatible}"

if [[ -x "$DEST/h2spec" ]]; then
  echo "h2spec already built: $DEST/h2spec"
  exit 0
fi

GO="$(command -v go || true)"
[[ -z "$GO" && -x /usr/local/go/bin/go ]] && GO=/usr/local/go/bin/go
if [[ -z "$GO" ]]; then
  echo "installing golang-go (Debian) for the Go toolchain"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq golang-go >/dev/null
  GO="$(command -v go)"
fi

mkdir -p "$DEST"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# A private GOPATH and cache keep the build out of the user's Go set-up.
GOPATH="$WORK/gopath" GOCACHE="$WORK/cache" GOBIN="$DEST" GOFLAGS=-mod=mod \
  "$GO" install "$MODULE@$VERSION"
echo "built $DEST/h2spec ($("$DEST/h2spec" --version 2>/dev/null || echo "$VERSION"))"
