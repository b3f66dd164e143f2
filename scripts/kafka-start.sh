#!/usr/bin/env bash
# Starts a single-node Kafka 4.1 broker (KRaft, broker+controller in one JVM) on 127.0.0.1:9092
# from Maven Central jars (kafka/pom.xml), and waits until a kafkajs client can fetch metadata and
# the group coordinator answers (so consumer groups work at once, also after a keep-data restart).
#
# Idempotent: if a broker already answers on the port it is reused. The jars are collected with
# Maven only when kafka/target/libs is missing or older than kafka/pom.xml.
# Works from a checkout and from the installed npm package (`tracescore demo` runs it).
#
# Environment:
#   KAFKA_PORT=9092            client port (controller: KAFKA_CONTROLLER_PORT, default port+1)
#   KAFKA_DIR=.kafka           state dir (.kafka/port-<port> for a non-default port): data/, logs/server.log,
#                              kafka.out (JVM stdout/stderr), server.properties, kafka.pid. Run from an
#                              installed package (no .git): ~/.local/state/tracescore/kafka instead
#                              (XDG_STATE_HOME), the broker jars too (scripts/lib/kafka-env.sh)
#   KAFKA_KEEP_DATA=1          keep the existing data dir (restart with topics and offsets kept);
#                              by default a freshly started broker gets an empty, newly formatted store
#   KAFKA_START_TIMEOUT=60     seconds to wait for readiness before failing
#   KAFKA_HEAP_OPTS            default "-Xms256m -Xmx768m"
#   KAFKA_JVM_OPTS             default G1 + C1-only JIT (fast start, low CPU); override for benchmarks
#   KAFKA_CREATE_TOPICS        e.g. "otlp_spans:3,other:1": created (if missing) once ready
#   KAFKA_SASL_SSL=1           also a SASL_SSL listener (TLS + SCRAM-SHA-512) on KAFKA_SASL_SSL_PORT
#                              (default port+2); CA, users and passwords in $KAFKA_DIR/sasl-ssl/
#                              (scripts/lib/kafka-sasl-ssl.sh). Off by default.
set -euo pipefail
source "$(dirname "$0")/lib/kafka-env.sh"
sasl_ssl=${KAFKA_SASL_SSL:-0}
[[ "$sasl_ssl" == 1 ]] && source "$(dirname "$0")/lib/kafka-sasl-ssl.sh"

log() { printf 'kafka: %s\n' "$*"; }
# KAFKA_NODE (the demo passes the Node it runs on), else the checkout's Node 24 from node_modules
# (calling its binary directly saves npx's ~1.5 s per probe), else node on PATH.
node_bin=${KAFKA_NODE:-node}
if [[ -z "${KAFKA_NODE:-}" && -x "$KAFKA_ROOT/node_modules/.bin/node" ]]; then node_bin=$KAFKA_ROOT/node_modules/.bin/node; fi
node_run() { "$node_bin" --no-warnings "$@"; }
probe() { node_run "$KAFKA_ROOT/scripts/lib/kafka-probe.mjs" --brokers "127.0.0.1:$KAFKA_PORT" "$@"; }
topics_args=()
[[ -n "${KAFKA_CREATE_TOPICS:-}" ]] && topics_args=(--create-topics "$KAFKA_CREATE_TOPICS")
# Ready: a client answers on the PLAINTEXT port and, when asked for, through SASL_SSL too.
probe_ready() {
  probe "$@" "${topics_args[@]}" || return
  [[ "$sasl_ssl" != 1 ]] ||
    node_run "$KAFKA_ROOT/scripts/lib/kafka-probe.mjs" --brokers "127.0.0.1:$KAFKA_SASL_SSL_PORT" \
      --client-config "$SASL_SSL_CLIENT" "$@"
}
sasl_ssl_note() {
  [[ "$sasl_ssl" != 1 ]] ||
    log "SASL_SSL (SCRAM-SHA-512) on 127.0.0.1:$KAFKA_SASL_SSL_PORT; CA and users: $SASL_SSL_CLIENT"
}

# Serialise concurrent starts (several engineers / test runs on one machine).
exec 9>"$KAFKA_DIR/kafka-start.lock"
flock 9

# 1. Reuse a broker that already answers (ours or anyone's).
if port_open "$KAFKA_PORT"; then
  if [[ "$sasl_ssl" == 1 ]] && ! port_open "$KAFKA_SASL_SSL_PORT"; then
    log "the broker on 127.0.0.1:$KAFKA_PORT has no SASL_SSL listener on $KAFKA_SASL_SSL_PORT: stop it (scripts/kafka-stop.sh) and start it again with KAFKA_SASL_SSL=1" >&2
    exit 1
  fi
  if probe_ready --timeout-ms 15000 >/dev/null; then
    pid=$(kafka_running_pid || echo "not ours")
    log "reusing the broker already running on 127.0.0.1:$KAFKA_PORT (pid $pid); log: $KAFKA_LOG_DIR/server.log"
    sasl_ssl_note
    exit 0
  fi
  log "port $KAFKA_PORT is open but no Kafka broker answers there" >&2
  exit 1
fi
# Our JVM still starting (port not bound yet)? Wait for it instead of starting a second one.
if pid=$(kafka_running_pid); then
  log "a broker we started (pid $pid) is still starting; waiting for it"
  if probe_ready --timeout-ms "$((${KAFKA_START_TIMEOUT:-60} * 1000))" --pid "$pid"; then
    log "ready on 127.0.0.1:$KAFKA_PORT (pid $pid); log: $KAFKA_LOG_DIR/server.log"
    sasl_ssl_note
    exit 0
  fi
  log "broker pid $pid never became ready; stop it with scripts/kafka-stop.sh" >&2
  exit 1
fi

start_ns=$(date +%s%N)

# 2. The broker classpath, from Maven Central (cached in ~/.m2 after the first run).
command -v java >/dev/null || { log "java not found (Kafka 4.x needs Java 17+)" >&2; exit 1; }
# Brokers on other ports share the jars: one Maven run at a time.
mkdir -p "$KAFKA_MAVEN_DIR/target"
exec 8>"$KAFKA_MAVEN_DIR/target/.libs.lock"
flock 8
pom=$KAFKA_MAVEN_DIR/pom.xml
# An installed package builds a copy of its pom in the state dir; another version's pom replaces it.
[[ "$pom" -ef "$KAFKA_ROOT/kafka/pom.xml" ]] || cmp -s "$KAFKA_ROOT/kafka/pom.xml" "$pom" ||
  cp "$KAFKA_ROOT/kafka/pom.xml" "$pom"
if [[ ! -f "$KAFKA_LIBS/.complete" || "$pom" -nt "$KAFKA_LIBS/.complete" ]]; then
  log "collecting the broker jars with Maven ($pom -> $KAFKA_LIBS)"
  rm -rf "$KAFKA_LIBS"
  mkdir -p "$KAFKA_LOG_DIR"
  mvn -B -q -Dstyle.color=never -f "$pom" package >"$KAFKA_LOG_DIR/mvn.log" 2>&1 || {
    log "mvn failed; last lines of $KAFKA_LOG_DIR/mvn.log:" >&2
    tail -n 30 "$KAFKA_LOG_DIR/mvn.log" >&2
    exit 1
  }
  touch "$KAFKA_LIBS/.complete"
fi
exec 8>&-
kafka_jar=$(ls "$KAFKA_LIBS"/kafka_2.13-*.jar)
kafka_version=${kafka_jar##*/kafka_2.13-}
kafka_version=${kafka_version%.jar}

# 3. Config and a formatted KRaft store.
if [[ "${KAFKA_KEEP_DATA:-0}" != 1 ]]; then rm -rf "$KAFKA_DATA_DIR"; fi
mkdir -p "$KAFKA_DATA_DIR" "$KAFKA_LOG_DIR"
sed -e "s|@KAFKA_PORT@|$KAFKA_PORT|g" \
  -e "s|@KAFKA_CONTROLLER_PORT@|$KAFKA_CONTROLLER_PORT|g" \
  -e "s|@KAFKA_DATA_DIR@|$KAFKA_DATA_DIR|g" \
  "$KAFKA_ROOT/kafka/server.properties.template" >"$KAFKA_DIR/server.properties"
format_args=()
if [[ "$sasl_ssl" == 1 ]]; then
  sasl_ssl_prepare
  sasl_ssl_configure "$KAFKA_DIR/server.properties"
  mapfile -t format_args < <(sasl_ssl_format_args)
  # SCRAM users are created when the store is formatted; a kept store made without them has none.
  if [[ -f "$KAFKA_DATA_DIR/meta.properties" && ! -f "$KAFKA_DATA_DIR/.scram-users" ]]; then
    log "the kept store $KAFKA_DATA_DIR was formatted without SCRAM users: start once without KAFKA_KEEP_DATA" >&2
    exit 1
  fi
fi
log_opts=(-Dlog4j2.configurationFile="$KAFKA_ROOT/kafka/log4j2.properties" -Dkafka.logs.dir="$KAFKA_LOG_DIR")
if [[ ! -f "$KAFKA_DATA_DIR/meta.properties" ]]; then
  # A fixed cluster id is fine for a local test broker.
  java -Xmx256m -XX:TieredStopAtLevel=1 "${log_opts[@]}" -cp "$KAFKA_LIBS/*" kafka.tools.StorageTool format \
    --cluster-id "${KAFKA_CLUSTER_ID:-4L6g3nShT-eMCtK--X86sw}" --config "$KAFKA_DIR/server.properties" \
    --ignore-formatted "${format_args[@]}" >"$KAFKA_LOG_DIR/format.out" 2>&1 || {
    log "formatting the KRaft store failed:" >&2
    cat "$KAFKA_LOG_DIR/format.out" >&2
    exit 1
  }
  [[ "$sasl_ssl" != 1 ]] || touch "$KAFKA_DATA_DIR/.scram-users"
fi

# 4. Start kafka.Kafka in its own session, so it outlives this script and the test runner.
heap_opts=${KAFKA_HEAP_OPTS:--Xms256m -Xmx768m}
jvm_opts=${KAFKA_JVM_OPTS:--XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:TieredStopAtLevel=1 -Djava.awt.headless=true}
# shellcheck disable=SC2086 # word splitting of the option strings is intended
# Where this start's lines begin in server.log (the log is appended to across starts).
log_from=$(($(stat -c %s "$KAFKA_LOG_DIR/server.log" 2>/dev/null || echo 0) + 1))
setsid nohup java $heap_opts $jvm_opts "${log_opts[@]}" -cp "$KAFKA_LIBS/*" \
  kafka.Kafka "$KAFKA_DIR/server.properties" >"$KAFKA_DIR/kafka.out" 2>&1 </dev/null 9>&- &
pid=$!
echo "$pid" >"$KAFKA_PID_FILE"
log "starting Kafka $kafka_version (pid $pid) on 127.0.0.1:$KAFKA_PORT, data $KAFKA_DATA_DIR"

# 5. Ready when a real client can fetch metadata.
if probe_ready --timeout-ms "$((${KAFKA_START_TIMEOUT:-60} * 1000))" --pid "$pid"; then
  ms=$((($(date +%s%N) - start_ns) / 1000000))
  log "ready on 127.0.0.1:$KAFKA_PORT after $((ms / 1000)).$(printf '%03d' $((ms % 1000))) s (pid $pid)"
  sasl_ssl_note
  port_env=$([[ "$KAFKA_PORT" == 9092 ]] || echo "KAFKA_PORT=$KAFKA_PORT ")
  log "log: $KAFKA_LOG_DIR/server.log (JVM output: $KAFKA_DIR/kafka.out); stop: ${port_env}bash $KAFKA_ROOT/scripts/kafka-stop.sh"
  exit 0
fi
log "the broker did not become ready; this start's first errors and their causes, then the last lines of $KAFKA_LOG_DIR/server.log:" >&2
this_start() { tail -c "+$log_from" "$KAFKA_LOG_DIR/server.log" 2>/dev/null; }
this_start | grep -m 10 -E '^\[[^]]*\] (ERROR|FATAL)|^Caused by:' >&2 || true
echo '...' >&2
this_start | tail -n 40 >&2 || true
tail -n 20 "$KAFKA_DIR/kafka.out" >&2 2>/dev/null || true
kill -TERM "$pid" 2>/dev/null && sleep 3 && kill -KILL "$pid" 2>/dev/null || true
rm -f "$KAFKA_PID_FILE"
exit 1
