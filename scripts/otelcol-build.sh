#!/usr/bin/env bash
# Builds the OpenTelemetry Collector distribution of tools/otelcol (core v0.165.0, contrib
# v0.165.1: otlp and kafka receivers, batch and tail_sampling processors, kafka, otlp_http, debug
# and file exporters) and prints the path of the cached binary. A cold build takes minutes; later
# runs print the cached path at once.
# See scripts/lib/go-build.sh for the cache (TRACESCORE_CACHE_DIR). Exit 3 when `go` is missing.
set -euo pipefail
source "$(dirname "$0")/lib/go-build.sh"
go_build_cached otelcol .
