# Shared settings for scripts/phoenix-start.sh and scripts/phoenix-stop.sh (sourced, not run).
PHOENIX_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# The version the e2e tests were verified with; bump it here (the venv is rebuilt on change).
PHOENIX_VERSION=20.26.1
PHOENIX_PORT=${PHOENIX_PORT:-6006}
# Phoenix always binds gRPC on all interfaces ([::]); a second instance needs its own gRPC port.
if [[ "$PHOENIX_PORT" == 6006 ]]; then PHOENIX_GRPC_PORT=${PHOENIX_GRPC_PORT:-4317}; else PHOENIX_GRPC_PORT=${PHOENIX_GRPC_PORT:-$((PHOENIX_PORT + 1))}; fi
if [[ -z "${PHOENIX_DIR:-}" ]]; then
  if [[ "$PHOENIX_PORT" == 6006 ]]; then PHOENIX_DIR=$PHOENIX_ROOT/.phoenix; else PHOENIX_DIR=$PHOENIX_ROOT/.phoenix/port-$PHOENIX_PORT; fi
fi
mkdir -p "$PHOENIX_DIR"
PHOENIX_DIR=$(cd "$PHOENIX_DIR" && pwd)
PHOENIX_VENV=${PHOENIX_VENV:-$PHOENIX_ROOT/.venv/phoenix}
PHOENIX_PID_FILE=$PHOENIX_DIR/phoenix.pid
PHOENIX_URL=http://127.0.0.1:$PHOENIX_PORT

phoenix_running_pid() {
  [[ -f "$PHOENIX_PID_FILE" ]] || return 1
  local pid
  pid=$(<"$PHOENIX_PID_FILE")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'phoenix' || return 1
  echo "$pid"
}

source "$(dirname "${BASH_SOURCE[0]}")/process.sh"
