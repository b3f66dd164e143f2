import type { DeliveryTarget } from '../delivery-queue.ts'
import type { IngestedTrace } from '../span-source.ts'

/**
 * Source options for tests: "scoring" hands each trace through unchanged and `deliver` is the one
 * target (its resolving acknowledges the trace, its rejection is retried).
 */
export function deliverTraces(deliver: DeliveryTarget<IngestedTrace>['deliver']): {
  process: (trace: IngestedTrace) => Promise<IngestedTrace>
  targets: DeliveryTarget<IngestedTrace>[]
} {
  return { process: async (trace) => trace, targets: [{ name: 'test', deliver }] }
}
