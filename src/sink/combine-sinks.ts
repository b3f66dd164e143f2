import type { CountingSink, Sink, SinkStats } from './sink.ts'

/** Raised when some sinks of a fan-out failed; each failure is in `errors`. */
export class FanOutDeliveryError extends AggregateError {
  override readonly name = 'FanOutDeliveryError'
  /** The names of the sinks that failed. */
  readonly failedSinks: string[]
  constructor(failedSinks: string[], errors: unknown[]) {
    super(errors, `delivery failed for sink(s) ${failedSinks.join(', ')}`)
    this.failedSinks = failedSinks
  }
}

/** A fan-out sink, with the counters of each member by name. */
export interface CombinedSink extends CountingSink {
  readonly sinks: readonly Sink[]
  /** Counters per member sink (members without `stats` are left out). */
  memberStats(): Record<string, SinkStats>
}

/**
 * Delivers every batch to all sinks at once and resolves when all acknowledged; rejects with a
 * `FanOutDeliveryError` once all have settled if any failed. A redelivery then also reaches the
 * sinks that succeeded: every sink here writes idempotently (deterministic ids, upserts), and the
 * Kafka score topic carries a stable `id` for consumers to dedupe.
 */
export function combineSinks(sinks: readonly Sink[]): CombinedSink {
  const counters: SinkStats = { delivered: 0, failed: 0, retries: 0, skipped: 0 }
  return {
    name: sinks.map((s) => s.name).join('+') || 'none',
    sinks,
    async deliver(records) {
      const results = await Promise.allSettled(sinks.map((sink) => sink.deliver(records)))
      const failed = results.flatMap((r, i) =>
        r.status === 'rejected' ? [{ sink: sinks[i]!, error: r.reason }] : [],
      )
      if (failed.length > 0) {
        counters.failed += records.length
        throw new FanOutDeliveryError(
          failed.map((f) => f.sink.name),
          failed.map((f) => f.error),
        )
      }
      counters.delivered += records.length
    },
    async close() {
      const results = await Promise.allSettled(sinks.map((sink) => sink.close()))
      const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []))
      if (errors.length > 0) throw new AggregateError(errors, 'closing sinks failed')
    },
    stats() {
      const retries = sinks.reduce((sum, sink) => sum + (sink.stats?.().retries ?? 0), 0)
      return { ...counters, retries }
    },
    memberStats() {
      const out: Record<string, SinkStats> = {}
      for (const sink of sinks) {
        const stats = sink.stats?.()
        if (stats) out[sink.name] = stats
      }
      return out
    },
  }
}
