#!/usr/bin/env bash
# Starts Arize Phoenix (PyPI `arize-phoenix`, pinned below) on 127.0.0.1:6006 as a local OTLP/HTTP
# backend for end-to-end tests, and waits until it is ready.
#
# Idempotent: reuses a Phoenix that already answers on the port. Creates the virtualenv
# .venv/phoenix and installs Phoenix only when that version is not installed there yet.
#
# Environment:
#   PHOENIX_PORT=6006          HTTP port: UI, REST (/v1/...), OTLP/HTTP protobuf (POST /v1/traces)
#   PHOENIX_GRPC_PORT=4317     OTLP gRPC port (PHOENIX_PORT+1 for a non-default PHOENIX_PORT). Note:
#                              Phoenix binds gRPC on all interfaces ([::]), whatever PHOENIX_HOST says
#   PHOENIX_DIR=.phoenix       working dir (phoenix.db, phoenix.log, phoenix.pid); .phoenix/port-<port>
#                              for a non-default port
#   PHOENIX_FRESH=1            start on an empty database (default: keep phoenix.db)
#   PHOENIX_START_TIMEOUT=180  seconds to wait for readiness (first start: ~25-45 s on 2 busy cores)
#   PHOENIX_PYTHON=python3     interpreter for the virtualenv (Python >= 3.10, < 3.15)
set -euo pipefail
source "$(dirname "$0")/lib/phoenix-env.sh"

log() { printf 'phoenix: %s\n' "$*"; }
ready() { curl -fsS -m 2 "$PHOENIX_URL/readyz" >/dev/null 2>&1; }
version() { curl -fsS -m 2 "$PHOENIX_URL/arize_phoenix_version" 2>/dev/null || echo '?'; }

exec 9>"$PHOENIX_DIR/phoenix-start.lock"
flock 9

if port_open "$PHOENIX_PORT"; then
  for _ in $(seq 1 30); do ready && break; sleep 0.5; done
  if ready; then
    log "reusing the Phoenix $(version) already running at $PHOENIX_URL (pid $(phoenix_running_pid || echo 'not ours')); log: $PHOENIX_DIR/phoenix.log"
    exit 0
  fi
  log "port $PHOENIX_PORT is open but Phoenix does not answer $PHOENIX_URL/readyz" >&2
  exit 1
fi

# 1. The virtualenv, only when this version (and constraints set) is missing. uv (from PyPI,
#    installed into the venv) is ~5x faster than pip here; pip is the fallback.
constraints=$PHOENIX_ROOT/scripts/lib/phoenix-constraints.txt
stamp="$PHOENIX_VENV/.installed-$PHOENIX_VERSION-$(sha256sum "$constraints" | cut -c1-12)"
if [[ ! -f "$stamp" ]]; then
  t0=$(date +%s)
  log "installing arize-phoenix==$PHOENIX_VERSION into $PHOENIX_VENV (once; log: $PHOENIX_DIR/pip-install.log)"
  rm -rf "$PHOENIX_VENV"
  "${PHOENIX_PYTHON:-python3}" -m venv "$PHOENIX_VENV"
  py=$PHOENIX_VENV/bin/python
  {
    if "$py" -m pip install -q --disable-pip-version-check --no-input uv &&
      "$PHOENIX_VENV/bin/uv" pip install -q --python "$py" --compile-bytecode \
        -c "$constraints" "arize-phoenix==$PHOENIX_VERSION"; then
      echo "installed with uv"
    else
      echo "uv failed; falling back to pip"
      "$py" -m pip install -q --disable-pip-version-check --no-input \
        -c "$constraints" "arize-phoenix==$PHOENIX_VERSION"
    fi
  } >"$PHOENIX_DIR/pip-install.log" 2>&1 || {
    log "installing Phoenix failed; last lines of $PHOENIX_DIR/pip-install.log:" >&2
    tail -n 30 "$PHOENIX_DIR/pip-install.log" >&2
    exit 1
  }
  touch "$stamp"
  log "installed in $(($(date +%s) - t0)) s ($(tail -n 1 "$PHOENIX_DIR/pip-install.log"))"
fi

# 2. Start `phoenix serve` in its own session, so it outlives this script and the test runner.
start_ns=$(date +%s%N)
if [[ "${PHOENIX_FRESH:-0}" == 1 ]]; then rm -f "$PHOENIX_DIR"/phoenix.db*; fi
PHOENIX_WORKING_DIR=$PHOENIX_DIR \
  PHOENIX_HOST=127.0.0.1 \
  PHOENIX_PORT=$PHOENIX_PORT \
  PHOENIX_GRPC_PORT=$PHOENIX_GRPC_PORT \
  PHOENIX_TELEMETRY_ENABLED=false \
  PHOENIX_ALLOW_EXTERNAL_RESOURCES=false \
  PHOENIX_DB_LOGGING_LEVEL=${PHOENIX_DB_LOGGING_LEVEL:-warning} \
  setsid nohup "$PHOENIX_VENV/bin/phoenix" serve >"$PHOENIX_DIR/phoenix.log" 2>&1 </dev/null 9>&- &
pid=$!
echo "$pid" >"$PHOENIX_PID_FILE"
log "starting Phoenix $PHOENIX_VERSION (pid $pid) at $PHOENIX_URL, working dir $PHOENIX_DIR"

deadline=$(($(date +%s) + ${PHOENIX_START_TIMEOUT:-180}))
while (($(date +%s) < deadline)); do
  if ! kill -0 "$pid" 2>/dev/null; then
    log "phoenix serve exited; last lines of $PHOENIX_DIR/phoenix.log:" >&2
    tail -n 40 "$PHOENIX_DIR/phoenix.log" >&2
    rm -f "$PHOENIX_PID_FILE"
    exit 1
  fi
  if ready; then
    ms=$((($(date +%s%N) - start_ns) / 1000000))
    log "Phoenix $(version) ready at $PHOENIX_URL after $((ms / 1000)).$(printf '%03d' $((ms % 1000))) s (pid $pid)"
    log "OTLP/HTTP protobuf: $PHOENIX_URL/v1/traces, gRPC: port $PHOENIX_GRPC_PORT (all interfaces); log: $PHOENIX_DIR/phoenix.log; stop: scripts/phoenix-stop.sh"
    exit 0
  fi
  sleep 0.5
done
log "Phoenix did not become ready in ${PHOENIX_START_TIMEOUT:-180} s; last lines of $PHOENIX_DIR/phoenix.log:" >&2
tail -n 40 "$PHOENIX_DIR/phoenix.log" >&2
kill -TERM "$pid" 2>/dev/null || true
rm -f "$PHOENIX_PID_FILE"
exit 1
