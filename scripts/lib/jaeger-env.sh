# Shared settings for scripts/jaeger-start.sh and scripts/jaeger-stop.sh (sourced, not run).
JAEGER_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
JAEGER_PORT=${JAEGER_PORT:-16686}
# Every other port follows JAEGER_PORT, so one variable moves a whole instance.
JAEGER_GRPC_PORT=${JAEGER_GRPC_PORT:-$((JAEGER_PORT + 1))}
JAEGER_OTLP_PORT=${JAEGER_OTLP_PORT:-$((JAEGER_PORT + 2))}
if [[ -z "${JAEGER_DIR:-}" ]]; then
  if [[ "$JAEGER_PORT" == 16686 ]]; then JAEGER_DIR=$JAEGER_ROOT/.jaeger; else JAEGER_DIR=$JAEGER_ROOT/.jaeger/port-$JAEGER_PORT; fi
fi
mkdir -p "$JAEGER_DIR"
JAEGER_DIR=$(cd "$JAEGER_DIR" && pwd)
JAEGER_PID_FILE=$JAEGER_DIR/jaeger.pid
JAEGER_URL=http://127.0.0.1:$JAEGER_PORT
export JAEGER_PORT JAEGER_GRPC_PORT JAEGER_OTLP_PORT

jaeger_running_pid() {
  [[ -f "$JAEGER_PID_FILE" ]] || return 1
  local pid
  pid=$(<"$JAEGER_PID_FILE")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'jaeger' || return 1
  echo "$pid"
}

source "$(dirname "${BASH_SOURCE[0]}")/process.sh"
