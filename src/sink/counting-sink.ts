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
 * once per batch and returns the attempt that is retried.
 */
export async function deliverTargetedBatches(
  records: ScoreRecord[],
  batchSize: number,
  delivery: RetryingDelivery,
  attemptOf: (batch: ScoreRecord[]) => () => Promise<void>,
): Promise<void> {
  const targeted = records.filter(hasValidTarget)
  delivery.skip(records.length - targeted.length)
  for (let start = 0; start < targeted.length; start += batchSize) {
    const batch = targeted.slice(start, start + batchSize)
    await delivery.run(batch.length, attemptOf(batch))
  }
}
