#!/usr/bin/env bash
# Starts Jaeger v1.76.0 (all-in-one `cmd/jaeger`, in-memory storage; built from Go modules by
# scripts/jaeger-build.sh, cached) as a second OTLP backend for end-to-end tests, and waits until
# its query API answers. Config: tools/jaeger/config.yaml.
#
# Idempotent: reuses a Jaeger that already answers on the port. Traces live in memory only: a
# restart starts empty.
#
# Environment:
#   JAEGER_PORT=16686            query API and UI (http://127.0.0.1:$JAEGER_PORT, /api/traces/<id>)
#   JAEGER_GRPC_PORT=port+1      query gRPC
#   JAEGER_OTLP_PORT=port+2      OTLP/HTTP receiver (POST /v1/traces, protobuf or JSON)
#   JAEGER_DIR=.jaeger           working dir (jaeger.log, jaeger.pid); .jaeger/port-<port> otherwise
#   JAEGER_START_TIMEOUT=60      seconds to wait for readiness
# Exit 3 when `go` is not installed (the binary cannot be built).
set -euo pipefail
source "$(dirname "$0")/lib/jaeger-env.sh"

log() { printf 'jaeger: %s\n' "$*"; }
ready() { curl -fsS -m 2 "$JAEGER_URL/api/services" >/dev/null 2>&1; }

exec 9>"$JAEGER_DIR/jaeger-start.lock"
flock 9

if port_open "$JAEGER_PORT"; then
  for _ in $(seq 1 30); do ready && break; sleep 0.5; done
  if ready; then
    log "reusing the Jaeger already running at $JAEGER_URL (pid $(jaeger_running_pid || echo 'not ours'))"
    exit 0
  fi
  log "port $JAEGER_PORT is open but Jaeger does not answer $JAEGER_URL/api/services" >&2
  exit 1
fi

status=0
bin=$(bash "$JAEGER_ROOT/scripts/jaeger-build.sh" 9>&-) || status=$?
if ((status != 0)); then exit "$status"; fi

start_ns=$(date +%s%N)
setsid nohup "$bin" --config "$JAEGER_ROOT/tools/jaeger/config.yaml" >"$JAEGER_DIR/jaeger.log" 2>&1 </dev/null 9>&- &
pid=$!
echo "$pid" >"$JAEGER_PID_FILE"
log "starting Jaeger (pid $pid) at $JAEGER_URL, OTLP/HTTP on 127.0.0.1:$JAEGER_OTLP_PORT"

if ! wait_ready "$pid" "${JAEGER_START_TIMEOUT:-60}" "$JAEGER_DIR/jaeger.log" ready; then
  rm -f "$JAEGER_PID_FILE"
  exit 1
fi
ms=$((($(date +%s%N) - start_ns) / 1000000))
log "ready at $JAEGER_URL after $((ms / 1000)).$(printf '%03d' $((ms % 1000))) s (pid $pid); OTLP/HTTP: http://127.0.0.1:$JAEGER_OTLP_PORT/v1/traces; log: $JAEGER_DIR/jaeger.log; stop: scripts/jaeger-stop.sh"
