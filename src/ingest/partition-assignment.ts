import type { Logger } from '../ops/logger.ts'
import type { ConsumerPort } from './consumer-port.ts'
import type { DeliveryQueue } from './delivery-queue.ts'
import type { OffsetTracker, RecordRef } from './offset-tracker.ts'
import type { PartitionWatermark } from './partition-watermark.ts'
import type { TraceAssembler } from './trace-assembler.ts'
import type { IngestedTrace } from './trace-handoff.ts'

/** What a (re)assignment touches. */
export interface AssignmentContext {
  topic: string
  consumer: ConsumerPort
  tracker: OffsetTracker
  assembler: TraceAssembler<RecordRef>
  /** Partitions no longer assigned stop holding the watermark. */
  watermark?: PartitionWatermark
  queue: DeliveryQueue<IngestedTrace>
  /** Where partitions not read yet start instead of the committed offset (a replay). */
  startOffsets: ReadonlyMap<number, string>
  logger: Logger
}

/**
 * Applies a (re)assignment. After a join, kafkajs reads every assigned partition from its
 * committed offset again: partitions kept continue where reading was (a seek; their buffered
 * traces and holds stay valid), partitions not read yet start at their start offset if one is
 * given, and the state of lost ones is dropped, since their new owner reads them: open traces and
 * traces waiting for scoring go (and are forgotten as released, so they are scored should the
 * partition come back), and traces being scored deliver nothing (the new owner scores them: two
 * owners delivering could deliver two different judge answers for one run); a delivery attempt
 * already under way finishes. The kept partitions' offsets are committed again. Ends the delivery
 * hold of the rebalance. Returns the partitions revoked.
 */
export function applyAssignment(partitions: readonly number[], ctx: AssignmentContext): number[] {
  const { topic, consumer, tracker } = ctx
  ctx.watermark?.assign(partitions)
  const lost = new Set<number>()
  for (const { partition } of tracker.assigned()) {
    const position = tracker.readPosition(topic, partition)
    if (partitions.includes(partition) && position !== undefined) consumer.seek(partition, position)
    else {
      tracker.revoke(topic, partition)
      lost.add(partition)
    }
  }
  // The kept partitions' offsets are committed again: one kafkajs answered during the restart
  // that led to this join may not have been made (OffsetTracker.commitAgain).
  tracker.commitAgain()
  for (const partition of partitions) {
    const start = ctx.startOffsets.get(partition)
    if (start !== undefined && tracker.readPosition(topic, partition) === undefined)
      consumer.seek(partition, start)
  }
  if (lost.size === 0) {
    ctx.queue.release()
    return []
  }
  const isLost = (ref: RecordRef) => lost.has(ref.partition)
  ctx.assembler.discard(isLost)
  const allLost = (trace: IngestedTrace) => trace.recordRefs.every(isLost)
  ctx.queue.release(allLost)
  const dropped = ctx.queue.drop(allLost)
  ctx.assembler.forget(dropped.map((t) => t.traceId))
  ctx.logger.info({ topic, revoked: [...lost], droppedTraces: dropped.length }, 'partitions revoked')
  return [...lost]
}
