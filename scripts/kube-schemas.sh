#!/usr/bin/env bash
# Makes the JSON schemas kubeconform validates the Helm chart's manifests against, from Go modules
# (the Go module proxy is the registry): the Kubernetes API of k8s.io/kubernetes (its
# api/openapi-spec/swagger.json), KEDA's ScaledObject and TriggerAuthentication CRDs
# (github.com/kedacore/keda/v2, config/crd/bases) and the Prometheus Operator's ServiceMonitor CRD
# (example/prometheus-operator-crd), converted by scripts/lib/kube-schemas.ts. Prints the folder.
# Cached like the Go programs (scripts/lib/go-build.sh) in kube-schemas-<hash>, keyed by the
# versions and the converter; the downloaded modules (about 30 MB) are deleted afterwards.
# Exit 3 when `go` is missing.
set -euo pipefail
source "$(dirname "$0")/lib/go-build.sh"

KUBERNETES_VERSION=v1.37.2
KEDA_VERSION=v2.20.2
PROMETHEUS_OPERATOR_VERSION=v0.85.0
GO_BUILD_NAME=kube-schemas

if ! command -v go >/dev/null; then
  go_build_log "the Go toolchain (go) is not installed; the schemas come from Go modules"
  exit 3
fi
# The repository's Node (npm ci installs Node 24, which runs TypeScript); else the system's.
node=$GO_BUILD_ROOT/node_modules/.bin/node
[[ -x $node ]] || node=node
converter=$GO_BUILD_ROOT/scripts/lib/kube-schemas.ts
key=$({
  echo "$KUBERNETES_VERSION $KEDA_VERSION $PROMETHEUS_OPERATOR_VERSION"
  sha256sum "$converter" "${BASH_SOURCE[0]}" | cut -d' ' -f1
} | sha256sum | cut -c1-16)
mkdir -p "$TRACESCORE_CACHE_DIR"
out=$TRACESCORE_CACHE_DIR/kube-schemas-$key
exec 7>"$TRACESCORE_CACHE_DIR/kube-schemas.lock"
flock 7
if [[ ! -f $out/.complete ]]; then
  scratch=$(mktemp -d "$TRACESCORE_CACHE_DIR/.kube-schemas-XXXXXX")
  trap 'rm -rf "$scratch"' EXIT
  t0=$(date +%s)
  go_build_log "downloading k8s.io/kubernetes@$KUBERNETES_VERSION, keda@$KEDA_VERSION, prometheus-operator@$PROMETHEUS_OPERATOR_VERSION"
  dir() { # dir MODULE@VERSION: the module's extracted folder
    (cd "$scratch" && GOMODCACHE=$scratch/mod GOFLAGS=-modcacherw GOTOOLCHAIN=local go mod download -json "$1") |
      "$node" -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>{const m=JSON.parse(s);if(m.Error)throw new Error(m.Error);console.log(m.Dir)})'
  }
  kubernetes=$(dir "k8s.io/kubernetes@$KUBERNETES_VERSION")
  keda=$(dir "github.com/kedacore/keda/v2@$KEDA_VERSION")
  prometheus_operator=$(dir "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION")
  rm -rf "$out"
  "$node" "$converter" "$out" "$kubernetes/api/openapi-spec/swagger.json" \
    "$keda/config/crd/bases/keda.sh_scaledobjects.yaml" \
    "$keda/config/crd/bases/keda.sh_triggerauthentications.yaml" \
    "$prometheus_operator/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml"
  touch "$out/.complete"
  go_build_log "made in $(($(date +%s) - t0)) s: $out"
fi
exec 7>&-
echo "$out"
