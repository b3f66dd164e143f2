# Shared settings for scripts/kafka-start.sh and scripts/kafka-stop.sh (sourced, not run).
#   KAFKA_PORT             client (PLAINTEXT) port, default 9092
#   KAFKA_CONTROLLER_PORT  KRaft controller port, default KAFKA_PORT+1
#   KAFKA_DIR              state dir (data/, logs/, server.properties, kafka.pid), default
#                          $KAFKA_STATE for port 9092 and $KAFKA_STATE/port-<port> for any other port
#                          (KAFKA_STATE: .kafka in a git checkout, next to the code and git-ignored;
#                          ${XDG_STATE_HOME:-~/.local/state}/tracescore/kafka in an installed package,
#                          since node_modules may be read-only, is replaced by every install and is
#                          no place for a broker's data)
#   KAFKA_NODE             the node binary for the readiness probe (default: the checkout's
#                          node_modules/.bin/node, else node on PATH)
KAFKA_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
KAFKA_PORT=${KAFKA_PORT:-9092}
KAFKA_CONTROLLER_PORT=${KAFKA_CONTROLLER_PORT:-$((KAFKA_PORT + 1))}
if [[ -e "$KAFKA_ROOT/.git" ]]; then
  KAFKA_STATE=$KAFKA_ROOT/.kafka
  # The broker jars: collected by Maven next to kafka/pom.xml (kafka/target/libs, git-ignored).
  KAFKA_MAVEN_DIR=$KAFKA_ROOT/kafka
else
  KAFKA_STATE=${XDG_STATE_HOME:-$HOME/.local/state}/tracescore/kafka
  # Maven writes target/ next to the pom it builds: a copy of the package's, in the state dir.
  KAFKA_MAVEN_DIR=$KAFKA_STATE/maven
fi
if [[ -z "${KAFKA_DIR:-}" ]]; then
  if [[ "$KAFKA_PORT" == 9092 ]]; then KAFKA_DIR=$KAFKA_STATE; else KAFKA_DIR=$KAFKA_STATE/port-$KAFKA_PORT; fi
fi
mkdir -p "$KAFKA_DIR"
KAFKA_DIR=$(cd "$KAFKA_DIR" && pwd)
KAFKA_DATA_DIR=$KAFKA_DIR/data
KAFKA_LOG_DIR=$KAFKA_DIR/logs
KAFKA_PID_FILE=$KAFKA_DIR/kafka.pid
KAFKA_LIBS=$KAFKA_MAVEN_DIR/target/libs

# Prints the pid from the pid file if that process is alive and is our kafka.Kafka.
kafka_running_pid() {
  [[ -f "$KAFKA_PID_FILE" ]] || return 1
  local pid
  pid=$(<"$KAFKA_PID_FILE")
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka' || return 1
  echo "$pid"
}

source "$(dirname "${BASH_SOURCE[0]}")/process.sh"
