#!/usr/bin/env bash
# Stops the broker started by scripts/kafka-start.sh (same KAFKA_PORT / KAFKA_DIR): SIGTERM for a
# controlled shutdown, SIGKILL after KAFKA_STOP_TIMEOUT seconds (default 30). Idempotent.
# Keeps the data dir, so `KAFKA_KEEP_DATA=1 scripts/kafka-start.sh` restarts with topics and
# offsets intact; KAFKA_WIPE=1 deletes it as well.
set -euo pipefail
source "$(dirname "$0")/lib/kafka-env.sh"

log() { printf 'kafka: %s\n' "$*"; }

if pid=$(kafka_running_pid); then
  stop_pid "$pid" "${KAFKA_STOP_TIMEOUT:-30}"
  log "stopped the broker on 127.0.0.1:$KAFKA_PORT (pid $pid)"
else
  log "no broker started by us is running for $KAFKA_DIR"
  if port_open "$KAFKA_PORT"; then log "note: something else listens on 127.0.0.1:$KAFKA_PORT; left alone"; fi
fi
rm -f "$KAFKA_PID_FILE"
if [[ "${KAFKA_WIPE:-0}" == 1 ]]; then
  rm -rf "$KAFKA_DIR/data"
  log "wiped $KAFKA_DIR/data"
fi
