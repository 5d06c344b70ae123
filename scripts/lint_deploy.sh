#!/usr/bin/env bash
# `make lint`'s deployment checks: hadolint on the Dockerfile, helm lint and helm template on the chart with each
# values file, kubeconform on the rendered manifests (offline schemas). A tool that is not installed is skipped with
# the reason printed; any finding fails the run.
set -uo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
TOOLS="${SLIPSTREAM_TOOLS_DIR:-$ROOT/build/tools}"
CHART=deploy/helm/slipstream
K8S_VERSIONS="${K8S_VERSIONS:-1.25.0 1.37.0}"   # the chart's kubeVersion floor and the newest schemas shipped
export K8S_VERSIONS

bash scripts/setup_deploy_linters.sh

failed=()
ran=()
skipped=()
list() { local IFS=,; echo "$*" | sed 's/,/, /g'; }  # list A B: "A, B"
skip() {  # skip TOOL WHY
  skipped+=("$1")
  echo "lint_deploy: $1 skipped: $2"
}
# Why scripts/setup_deploy_linters.sh could not install NAME (it records the reason).
why() {
  cat "$TOOLS/why-$1.txt" 2>/dev/null || echo "$1 is not installed in $TOOLS"
}

# Dockerfile
HADOLINT="$TOOLS/deploy-venv/bin/hadolint"
if [[ -x "$HADOLINT" ]]; then
  ran+=(hadolint)
  "$HADOLINT" --no-color --failure-threshold info Dockerfile || failed+=("hadolint Dockerfile")
else
  skip hadolint "$(why hadolint)"
fi

# The chart, rendered with each values file; "all" turns on every optional part (ServiceMonitor, HPA with a memory
# target, a chart-made Secret, a claim) so that each template is checked.
HELM="$TOOLS/bin/helm"
RENDERED="$TOOLS/rendered"
declare -A VALUES=(
  [default]=""
  [sqlite]="-f $CHART/values-sqlite.yaml"
  [postgres]="-f $CHART/values-postgres.yaml"
  [all]="--set serviceMonitor.enabled=true --set autoscaling.enabled=true
         --set autoscaling.targetMemoryUtilizationPercentage=80 --set database.url=postgresql://app@db/app
         --set database.storeUrl=postgresql://app@db/sessions --set persistence.enabled=true
         --set podDisruptionBudget.minAvailable=1 --set podAnnotations.team=api"
)
if [[ -x "$HELM" ]]; then
  ran+=("helm lint" "helm template")
  rm -rf "$RENDERED" && mkdir -p "$RENDERED"
  for name in default sqlite postgres all; do
    # shellcheck disable=SC2086 # the values arguments are words
    "$HELM" lint --strict --quiet "$CHART" ${VALUES[$name]} >"$RENDERED/$name.lint" 2>&1 ||
      { cat "$RENDERED/$name.lint"; failed+=("helm lint ($name values)"); }
    # shellcheck disable=SC2086
    "$HELM" template release "$CHART" ${VALUES[$name]} >"$RENDERED/$name.yaml" ||
      failed+=("helm template ($name values)")
  done
else
  skip "helm lint, helm template, kubeconform" "$(why helm)"
fi

# The rendered manifests against the Kubernetes schemas of each version. The ServiceMonitor is the Prometheus
# operator's CRD: no schema of it is shipped by a registry package, so kubeconform skips that kind.
KUBECONFORM="$TOOLS/bin/kubeconform"
if [[ -x "$HELM" && -x "$KUBECONFORM" ]]; then
  for version in $K8S_VERSIONS; do
    if [[ ! -f "$TOOLS/k8s-schemas/v$version-local-strict/.done" ]]; then
      skip "kubeconform (Kubernetes $version)" "$(why "k8s-schemas-$version")"
      continue
    fi
    ran+=("kubeconform (Kubernetes $version)")
    "$KUBECONFORM" -strict -summary -output text -kubernetes-version "$version" -skip ServiceMonitor \
      -schema-location "$TOOLS/k8s-schemas/{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json" \
      "$RENDERED"/*.yaml >"$RENDERED/kubeconform-$version.txt" 2>&1 ||
      failed+=("kubeconform (Kubernetes $version)")
    # Only findings and the summary; a valid resource prints nothing.
    sed "s|^|kubeconform $version: |" "$RENDERED/kubeconform-$version.txt" | grep -v "Summary: .* Invalid: 0, Errors: 0" || true
  done
elif [[ -x "$HELM" ]]; then
  skip kubeconform "$(why kubeconform)"
fi

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "lint_deploy: FAILED: ${failed[*]}"
  exit 1
fi
if [[ ${#ran[@]} -eq 0 ]]; then
  echo "lint_deploy: no deployment linter could run (skipped: $(list "${skipped[@]}"))"
  exit 0
fi
echo "lint: deploy ok ($(list "${ran[@]}")${skipped:+; skipped: $(list "${skipped[@]}")})"
