#!/usr/bin/env bash
# Stops the Phoenix started by scripts/phoenix-start.sh: SIGTERM, then SIGKILL after
# PHOENIX_STOP_TIMEOUT seconds (default 20). Idempotent. PHOENIX_WIPE=1 also deletes its database.
set -euo pipefail
source "$(dirname "$0")/lib/phoenix-env.sh"

log() { printf 'phoenix: %s\n' "$*"; }

if pid=$(phoenix_running_pid); then
  stop_pid "$pid" "${PHOENIX_STOP_TIMEOUT:-20}"
  log "stopped Phoenix at $PHOENIX_URL (pid $pid)"
else
  log "no Phoenix started by us is running for $PHOENIX_DIR"
  if port_open "$PHOENIX_PORT"; then log "note: something else listens on 127.0.0.1:$PHOENIX_PORT; left alone"; fi
fi
rm -f "$PHOENIX_PID_FILE"
if [[ "${PHOENIX_WIPE:-0}" == 1 ]]; then
  rm -f "$PHOENIX_DIR"/phoenix.db*
  log "wiped $PHOENIX_DIR/phoenix.db"
fi
