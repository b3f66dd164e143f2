import type { Logger } from '../ops/logger.ts'
import type { RetryPolicy, Sleep } from '../sink/retry-policy.ts'
import {
  createDeliveryQueue,
  type DeliveryOutcome,
  type DeliveryQueue,
  type DeliveryTarget,
} from './delivery-queue.ts'
import type { OffsetTracker, RecordRef } from './offset-tracker.ts'
import type { ReadyTrace, TraceAssembler } from './trace-assembler.ts'

/** A trace ready for scoring, with the Kafka records it came from. */
export type IngestedTrace = ReadyTrace<RecordRef>

/** Counters of traces handed off. */
export interface HandoffCounters {
  tracesReleased: number
  /** Of the traces released, those released incomplete (by age, the buffer caps or a flush). */
  tracesIncomplete: number
  tracesDelivered: number
  tracesWithoutRuns: number
  /** Traces whose scoring threw (logged; nothing to deliver). */
  tracesFailed: number
  /** Failed delivery attempts (one per trace and target). */
  deliveryFailures: number
  /** Traces scored here whose partitions went to another member before delivery: delivered by it. */
  tracesRevoked: number
}

/** Settings of the handoff. */
interface TraceHandoffOptions<R> {
  assembler: TraceAssembler<RecordRef>
  tracker: OffsetTracker
  process(trace: IngestedTrace): Promise<R>
  targets: readonly DeliveryTarget<R>[]
  maxInFlight: number
  policy?: RetryPolicy
  sleep?: Sleep
  logger: Logger
  /** A delivery was given up (a bounded policy ran out): the source cannot go on. */
  onUndeliverable(error: unknown): void
}

/** Moves released traces into the delivery queue and finishes their records when they are done. */
export interface TraceHandoff {
  /** Hands every trace the assembler has ready to the queue (or finishes it: no agent run). */
  collectReady(): void
  /** Hands every buffered trace over now, complete or not. */
  flush(): void
  readonly queue: DeliveryQueue<IngestedTrace>
  counters(): HandoffCounters
}

/**
 * Creates the handoff between the assembler and the delivery queue: a trace's records are
 * released in the offset tracker when it was delivered, had no agent run, or its scoring threw;
 * a trace abandoned at shutdown or given up keeps them held (its offsets are not committed).
 */
export function createTraceHandoff<R>(options: TraceHandoffOptions<R>): TraceHandoff {
  const { assembler, tracker, logger } = options
  const counters: HandoffCounters = {
    tracesReleased: 0,
    tracesIncomplete: 0,
    tracesDelivered: 0,
    tracesWithoutRuns: 0,
    tracesFailed: 0,
    deliveryFailures: 0,
    tracesRevoked: 0,
  }
  const finish = (trace: IngestedTrace) => {
    for (const ref of trace.recordRefs) tracker.release(ref)
  }
  const onDone = (trace: IngestedTrace, outcome: DeliveryOutcome, error?: unknown) => {
    if (outcome === 'abandoned') return // its offsets wait: read again after a restart
    if (outcome === 'revoked') {
      // Its records are the new owner's now; should they come back here, they are scored again.
      counters.tracesRevoked++
      assembler.forget([trace.traceId])
      return
    }
    if (outcome === 'undeliverable') {
      logger.error({ err: error, traceId: trace.traceId }, 'delivery given up; its offsets stay uncommitted')
      options.onUndeliverable(error)
      return
    }
    if (outcome === 'failed') {
      counters.tracesFailed++
      logger.error({ err: error, traceId: trace.traceId }, 'scoring a trace failed; it is skipped')
    } else counters.tracesDelivered++
    finish(trace)
  }
  const queue = createDeliveryQueue<IngestedTrace, R>({
    process: options.process,
    targets: options.targets,
    maxInFlight: options.maxInFlight,
    policy: options.policy,
    sleep: options.sleep,
    onDone,
    onFailure(trace, target, error, attempt) {
      counters.deliveryFailures++
      // The first failure and then every tenth: a backend that is down for long would flood the log.
      if (attempt % 10 === 0)
        logger.warn(
          { err: error, traceId: trace.traceId, sink: target, attempt: attempt + 1 },
          'delivery failed; retrying it (not the scoring), offsets wait',
        )
    },
  })
  const handOver = (traces: IngestedTrace[]) => {
    if (traces.length === 0) return
    counters.tracesReleased += traces.length
    const withRuns: IngestedTrace[] = []
    for (const trace of traces) {
      if (trace.incomplete) counters.tracesIncomplete++
      if (trace.hasGenAi) withRuns.push(trace)
      else {
        counters.tracesWithoutRuns++
        finish(trace)
      }
    }
    queue.push(withRuns)
  }
  return {
    collectReady: () => handOver(assembler.takeReady()),
    flush: () => handOver(assembler.flush()),
    queue,
    counters: () => ({ ...counters }),
  }
}
