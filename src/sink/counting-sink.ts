import type { ScoreRecord } from '../model/index.ts'
import type { RetryOptions } from './retry-policy.ts'
import { createRetryingDelivery, type RetryingDelivery } from './retrying-delivery.ts'
import { hasValidTarget } from './score-target.ts'
import type { CountingSink } from './sink.ts'

/**
 * The frame every sink in `src/sink` shares: a retrying delivery named after the sink (its
 * counters are the sink's `stats`), `deliver` handed that delivery, and `close` that stops
 * retrying before it releases what the sink holds (`release`).
 */
export function createCountingSink(
  name: string,
  { retry, sleep, onRetry }: RetryOptions,
  deliver: (records: ScoreRecord[], delivery: RetryingDelivery) => Promise<void>,
  release?: () => Promise<void>,
): CountingSink {
  const delivery = createRetryingDelivery({ sink: name, retry, sleep, onRetry })
  return {
    name,
    deliver: (records) => deliver(records, delivery),
    async close() {
      delivery.stop()
      await release?.()
    },
    stats: delivery.stats,
  }
}

/**
 * Delivers the records that name a valid agent-run span (the others are counted as skipped) in
 * batches of at most `batchSize`, one retried delivery per batch. `attemptOf(batch)` is called
 * once per batch and returns the attempt that is retried. With `wholeTraces`, a trace's records
 * stay in one batch (a trace with more than `batchSize` records is a batch of its own), for sinks
 * that also write one thing per trace.
 */
export async function deliverTargetedBatches(
  records: ScoreRecord[],
  batchSize: number,
  delivery: RetryingDelivery,
  attemptOf: (batch: ScoreRecord[]) => () => Promise<void>,
  { wholeTraces = false }: { wholeTraces?: boolean } = {},
): Promise<void> {
  const targeted = records.filter(hasValidTarget)
  delivery.skip(records.length - targeted.length)
  const batches = wholeTraces ? batchesOfWholeTraces(targeted, batchSize) : slices(targeted, batchSize)
  for (const batch of batches) await delivery.run(batch.length, attemptOf(batch))
}

function slices(records: ScoreRecord[], size: number): ScoreRecord[][] {
  const batches: ScoreRecord[][] = []
  for (let start = 0; start < records.length; start += size) batches.push(records.slice(start, start + size))
  return batches
}

function batchesOfWholeTraces(records: ScoreRecord[], size: number): ScoreRecord[][] {
  const traces = new Map<string, ScoreRecord[]>()
  for (const record of records) {
    const traceId = record.traceId.toLowerCase()
    const trace = traces.get(traceId)
    if (trace) trace.push(record)
    else traces.set(traceId, [record])
  }
  const batches: ScoreRecord[][] = []
  let batch: ScoreRecord[] = []
  for (const trace of traces.values()) {
    if (batch.length > 0 && batch.length + trace.length > size) {
      batches.push(batch)
      batch = []
    }
    batch.push(...trace)
  }
  if (batch.length > 0) batches.push(batch)
  return batches
}
