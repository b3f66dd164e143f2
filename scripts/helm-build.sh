#!/usr/bin/env bash
# Builds Helm v3.22.0's `cmd/helm` (the tool of the module tools/helm) and prints the path of the
# cached binary: the chart tests (test/unit/helm-chart.test.ts) run its lint and template.
# See scripts/lib/go-build.sh for the cache (TRACESCORE_CACHE_DIR). Exit 3 when `go` is missing.
set -euo pipefail
source "$(dirname "$0")/lib/go-build.sh"
go_build_cached helm helm.sh/helm/v3/cmd/helm
