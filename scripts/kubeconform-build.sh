#!/usr/bin/env bash
# Builds kubeconform v0.8.0 (the tool of the module tools/kubeconform) and prints the path of the
# cached binary: the chart tests validate the rendered manifests with it.
# See scripts/lib/go-build.sh for the cache (TRACESCORE_CACHE_DIR). Exit 3 when `go` is missing.
set -euo pipefail
source "$(dirname "$0")/lib/go-build.sh"
go_build_cached kubeconform github.com/yannh/kubeconform/cmd/kubeconform
