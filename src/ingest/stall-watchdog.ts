/** Settings of a stall watchdog. */
interface StallWatchdogOptions {
  /** Longest time without a `touch` before the watched thing counts as stalled. */
  timeoutMs: number
  /** Called once, with how long it was idle, when the timeout passed without a `touch`. */
  onStall(idleMs: number): void
  now?: () => number
}

/** Notices a loop that stopped making progress. */
export interface StallWatchdog {
  /** The loop made progress (a Kafka consumer completed a fetch). */
  touch(): void
  /** Checks now (also done on an interval between `start` and `stop`). */
  check(): void
  start(): void
  stop(): void
}

/**
 * A watchdog over a loop that must make progress: kafkajs can stay "running" without fetching
 * (a connection gone without an error) or restart forever while the broker is away, and neither
 * raises an error; this turns a long silence into one `onStall` call.
 */
export function createStallWatchdog(options: StallWatchdogOptions): StallWatchdog {
  const now = options.now ?? Date.now
  let last = now()
  let stalled = false
  let timer: NodeJS.Timeout | undefined
  const watchdog: StallWatchdog = {
    touch() {
      last = now()
    },
    check() {
      const idleMs = now() - last
      if (stalled || idleMs <= options.timeoutMs) return
      stalled = true
      watchdog.stop()
      options.onStall(idleMs)
    },
    start() {
      last = now()
      timer = setInterval(watchdog.check, Math.min(5_000, options.timeoutMs))
      timer.unref()
    },
    stop() {
      clearInterval(timer)
    },
  }
  return watchdog
}
