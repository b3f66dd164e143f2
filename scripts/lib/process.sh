# Shell helpers shared by the local-service scripts (Kafka broker, Phoenix).

# True when something accepts TCP connections on 127.0.0.1:$1.
port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# stop_pid PID TIMEOUT_SECONDS: SIGTERM, then SIGKILL if still alive after the timeout; waits
# until the process is gone. Prints a line through `log` when it has to kill.
stop_pid() {
  local pid=$1 timeout=$2 i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < timeout * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  log "pid $pid still alive after ${timeout}s; sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
}

# wait_ready PID TIMEOUT_SECONDS LOG_FILE CHECK...: waits until the command CHECK... succeeds.
# Fails (printing the log's last lines through `log`) when PID exits first or the time runs out,
# in which case PID is sent SIGTERM.
wait_ready() {
  local pid=$1 timeout=$2 logfile=$3
  shift 3
  local deadline=$(($(date +%s) + timeout))
  while (($(date +%s) < deadline)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "pid $pid exited; last lines of $logfile:" >&2
      tail -n 40 "$logfile" >&2
      return 1
    fi
    "$@" && return 0
    sleep 0.5
  done
  log "not ready in $timeout s; last lines of $logfile:" >&2
  tail -n 40 "$logfile" >&2
  kill -TERM "$pid" 2>/dev/null || true
  return 1
}
