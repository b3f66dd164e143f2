import type { Admin } from 'kafkajs'
import type { SpanSourceStats } from '../ingest/span-source.ts'
import type { ReleaseReason } from '../ingest/trace-assembler.ts'
import { refreshConsumerLag } from './consumer-lag.ts'
import type { Logger } from './logger.ts'
import type { Metrics } from './metrics.ts'

type CountedKey =
  | 'records'
  | 'spans'
  | 'deadLetters'
  | 'tracesReleased'
  | 'tracesIncomplete'
  | 'passedBySpans'
  | 'passedByTraces'

/**
 * Turns the source's running totals into Prometheus counters and gauges: returns a function to
 * call before each scrape, which adds what the totals grew by since the last call.
 */
export function sourceMetricsUpdater(metrics: Metrics, stats: () => SpanSourceStats): () => void {
  let last = stats()
  return () => {
    const now = stats()
    const delta = (key: CountedKey) => {
      const d = now[key] - last[key]
      return Number.isFinite(d) && d > 0 ? d : 0
    }
    metrics.records.inc(delta('records'))
    metrics.spans.inc(delta('spans'))
    metrics.deadLetters.inc(delta('deadLetters'))
    metrics.passedBySpans.inc(delta('passedBySpans'))
    metrics.passedByTraces.inc(delta('passedByTraces'))
    for (const reason of Object.keys(now.lateSpansByRelease) as ReleaseReason[]) {
      const d = now.lateSpansByRelease[reason] - last.lateSpansByRelease[reason]
      if (d > 0) metrics.lateSpans.inc({ released_by: reason }, d)
    }
    const incomplete = delta('tracesIncomplete')
    metrics.traces.inc({ complete: 'false' }, incomplete)
    metrics.traces.inc({ complete: 'true' }, Math.max(0, delta('tracesReleased') - incomplete))
    metrics.bufferedSpans.set(now.bufferedSpans)
    metrics.heldPartitions.set(now.heldPartitions)
    last = now
  }
}

/**
 * Brings the source's metrics and the consumer lag of its group up to date; the pipeline's
 * `refreshMetrics`, called before each scrape.
 */
export function sourceMetricsRefresher(
  metrics: Metrics,
  stats: () => SpanSourceStats,
  lag: { admin: Admin; groupId: string; topic: string; logger: Logger },
): { refresh(): Promise<void>; update(): void } {
  const update = sourceMetricsUpdater(metrics, stats)
  return {
    update,
    async refresh() {
      update()
      await refreshConsumerLag(lag.admin, lag, metrics.consumerLag, lag.logger)
    },
  }
}
