/**
 * kafkajs 2.2.4 (unmaintained) schedules `setTimeout(fn, throttledUntil - Date.now())` with a
 * negative delay when the broker never throttled (src/network/requestQueue/index.js, kafkajs
 * issue #1751); Node ≥ 23 prints a TimeoutNegativeWarning for each. The delay is clamped to 1 ms
 * by Node, which is what kafkajs intends, so the warning is noise for users: drop exactly it.
 */
export function filterKafkajsTimeoutWarning(): void {
  const original = process.emitWarning
  if ((original as { tracescoreFiltered?: boolean }).tracescoreFiltered) return
  const filtered = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const name =
      typeof warning === 'string'
        ? typeof rest[0] === 'string'
          ? rest[0]
          : (rest[0] as { type?: string })?.type
        : warning.name
    if (name === 'TimeoutNegativeWarning') return
    return (original as (...args: unknown[]) => void).call(this, warning, ...rest)
  } as typeof process.emitWarning
  ;(filtered as { tracescoreFiltered?: boolean }).tracescoreFiltered = true
  process.emitWarning = filtered
}
