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
