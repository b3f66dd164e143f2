/**
 * Makes sure the process ends with `code` once a command is done, even when a client left a
 * handle open (a Kafka consumer abandoned in a request that never returns): if the process is
 * still alive after `ms`, it exits (`onLate` is told first). An unref'd timer: a process that ends
 * by itself is not held.
 */
export function exitSoon(code: number, ms = 10_000, onLate?: () => void): void {
  setTimeout(() => {
    onLate?.()
    process.exit(code)
  }, ms).unref()
}
