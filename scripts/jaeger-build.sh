#!/usr/bin/env bash
# Builds Jaeger v1.76.0's all-in-one `cmd/jaeger` (the tool of the module tools/jaeger) and prints
# the path of the cached binary. A cold build takes minutes; later runs print the cached path at once.
# See scripts/lib/go-build.sh for the cache (TRACESCORE_CACHE_DIR). Exit 3 when `go` is missing.
set -euo pipefail
source "$(dirname "$0")/lib/go-build.sh"
go_build_cached jaeger github.com/jaegertracing/jaeger/cmd/jaeger
