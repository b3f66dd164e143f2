import type { Producer } from 'kafkajs'
import type { DeliveryTarget } from '../ingest/delivery-queue.ts'
import type { Metrics } from '../ops/metrics.ts'
import type { TraceScores } from '../score-trace.ts'
import type { Decision } from '../scoring/score-run.ts'
import type { Sink } from './sink.ts'

/**
 * What the delivery queue holds for a scored trace until every target acknowledged it: the score
 * records and decisions, not the rebuilt runs (their messages and tool calls can be large, and no
 * target reads them).
 */
export type DeliverableScores = Pick<TraceScores, 'records' | 'decisions'>

/** The part of a trace's scores that is delivered; the runs are dropped here, once scored. */
export function deliverableOf({ records, decisions }: TraceScores): DeliverableScores {
  return { records, decisions }
}

/**
 * A sink as a destination of the pipeline's delivery queue: it takes a trace's score records and
 * counts them per sink (`tracescore_sink_deliveries_total{sink,result}`: delivered once, failed
 * once per failed attempt). A trace without records is acknowledged at once.
 */
export function sinkTarget(sink: Sink, metrics?: Metrics): DeliveryTarget<DeliverableScores> {
  return {
    name: sink.name,
    async deliver({ records }) {
      if (records.length === 0) return
      try {
        await sink.deliver(records)
      } catch (error) {
        metrics?.sinkDeliveries.inc({ sink: sink.name, result: 'failed' }, records.length)
        throw error
      }
      metrics?.sinkDeliveries.inc({ sink: sink.name, result: 'delivered' }, records.length)
    },
  }
}

/** The JSON record of one decision on the decisions topic (`kafka.decisionsTopic`). */
function toDecisionMessage(decision: Decision) {
  return {
    traceId: decision.traceId,
    spanId: decision.spanId,
    scorer: decision.scorer,
    outcome: decision.outcome,
    ...(decision.detail ? { detail: decision.detail } : {}),
    ...(decision.record?.score !== undefined ? { score: decision.record.score } : {}),
    ...(decision.record?.error ? { error: decision.record.error } : {}),
  }
}

/** The decisions topic as a destination: every (run, scorer) decision, keyed by trace id. */
export function decisionsTarget(producer: Producer, topic: string): DeliveryTarget<DeliverableScores> {
  return {
    name: 'decisions',
    async deliver({ decisions }) {
      if (decisions.length === 0) return
      await producer.send({
        topic,
        acks: -1,
        messages: decisions.map((d) => ({ key: d.traceId, value: JSON.stringify(toDecisionMessage(d)) })),
      })
    },
  }
}
