import { PerformanceObserver } from 'node:perf_hooks'
import v8 from 'node:v8'

/**
 * V8's garbage-collector sizing for the service, the part of its peak memory that is not data.
 *
 * Reading a backlog, the service holds a few seconds of spans (tens of MiB) and allocates hundreds
 * of MiB a second around them. At V8's defaults its RSS settled near four times what it holds
 * (`bench/RESULTS.md` §14, fourth round): the old generation grew to up to four times what
 * survived the last full collection before the next one (a factor V8 picks from how fast it
 * collects), the fetch responses that died in the meantime (outside the heap) waited for that
 * same collection, and the new generation grew to 128 MiB (two semi-spaces of 64 MiB). So:
 * - the old generation may grow to twice what survived the last full collection (the policy of
 *   Go's collector at its default, the OpenTelemetry Collector's), `--heap-growing-percent=100`;
 * - the new generation stops growing once it reached 32 MiB (two semi-spaces of 16 MiB; V8 grows
 *   it only by doubling, and starts far below): `--semi-space-growth-factor=1` while it is there.
 * Both flags are read by V8 at each collection, so they can be set while the process runs. A
 * flag of either kind given to Node (NODE_OPTIONS or its command line) wins: nothing is changed
 * for what the user set.
 */

/** The old generation's growth over what survived the last full collection, in percent. */
export const HEAP_GROWING_PERCENT = 100
/** Size (both semi-spaces) at which the new generation stops growing. */
export const NEW_SPACE_CAP_BYTES = 32 * 1024 * 1024

/** What `tuneHeap` sets, from the Node options the process was started with. */
export interface HeapTuning {
  /** `--heap-growing-percent` to set, unless the user set one (on the command line: NODE_OPTIONS may not hold it). */
  growingPercent?: number
  /** Stop the new generation's growth at this size, unless the user sized it. */
  newSpaceCapBytes?: number
}

/** The tuning for a process started with `execArgv` and `NODE_OPTIONS` (`nodeOptions`). */
export function heapTuningFor(execArgv: readonly string[], nodeOptions: string | undefined): HeapTuning {
  const given = [...execArgv, ...(nodeOptions ?? '').split(/\s+/)].map((a) => a.replace(/_/g, '-'))
  const has = (flag: string) => given.some((a) => a === flag || a.startsWith(`${flag}=`))
  const tuning: HeapTuning = {}
  if (!has('--heap-growing-percent')) tuning.growingPercent = HEAP_GROWING_PERCENT
  if (!['--max-semi-space-size', '--semi-space-growth-factor', '--max-heap-size'].some(has))
    tuning.newSpaceCapBytes = NEW_SPACE_CAP_BYTES
  return tuning
}

/** The new generation's current size (both semi-spaces). */
const newSpaceBytes = (): number =>
  v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.space_size ?? 0

/**
 * Applies `tuning` to this process (see above). The new generation's growth is switched off while
 * it is at its cap and on again below it (V8 shrinks it when allocation slows down, and it must be
 * able to grow back): looked at now and after every collection (a young collection is when V8
 * resizes it). Returns a function that stops watching.
 */
export function tuneHeap(
  tuning: HeapTuning,
  setFlags: (flags: string) => void = v8.setFlagsFromString,
  newSpace: () => number = newSpaceBytes,
): () => void {
  if (tuning.growingPercent !== undefined) setFlags(`--heap-growing-percent=${tuning.growingPercent}`)
  const cap = tuning.newSpaceCapBytes
  if (cap === undefined) return () => {}
  let capped: boolean | undefined
  const look = () => {
    const atCap = newSpace() >= cap
    if (atCap === capped) return
    capped = atCap
    setFlags(`--semi-space-growth-factor=${atCap ? 1 : DEFAULT_GROWTH_FACTOR}`)
  }
  look()
  const observer = new PerformanceObserver(look)
  observer.observe({ entryTypes: ['gc'] })
  return () => observer.disconnect()
}

/** V8's own `--semi-space-growth-factor`. */
const DEFAULT_GROWTH_FACTOR = 2
