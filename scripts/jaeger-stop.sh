#!/usr/bin/env bash
# Stops the Jaeger started by scripts/jaeger-start.sh (SIGTERM, then SIGKILL after
# JAEGER_STOP_TIMEOUT seconds, default 10). Idempotent.
set -euo pipefail
source "$(dirname "$0")/lib/jaeger-env.sh"

log() { printf 'jaeger: %s\n' "$*"; }

if pid=$(jaeger_running_pid); then
  stop_pid "$pid" "${JAEGER_STOP_TIMEOUT:-10}"
  log "stopped Jaeger at $JAEGER_URL (pid $pid)"
else
  log "no Jaeger started by us is running for $JAEGER_DIR"
  if port_open "$JAEGER_PORT"; then log "note: something else listens on 127.0.0.1:$JAEGER_PORT; left alone"; fi
fi
rm -f "$JAEGER_PID_FILE"
