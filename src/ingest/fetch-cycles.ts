/**
 * What a kafkajs consumer's fetches prove was read, on the wall clock. kafkajs runs one fetch loop
 * per broker: it fetches, hands every batch of the response to `eachBatch`, waits until all were
 * handled, and only then fetches again. So when a broker's fetch starts, every batch of its
 * previous fetch was handled: each record written to that broker's partitions before the previous
 * fetch started was read, or lies behind a batch that stopped short of its partition's end (a
 * lagging partition, which the event-time watermark covers). The read-through time is the lowest
 * such start over the brokers fetching.
 *
 * Why the trace assembler needs it: a trace settles once no span of it arrived for `settleMs`.
 * Measured on the clock alone, that quiet period also runs while nothing is read (one fetch's
 * batches taking seconds to handle on a loaded machine, a pause), and a trace whose other spans
 * wait unread on another partition is released without them. Measured against the read-through
 * time, it only runs while the consumer keeps reading.
 * Pure: it knows only what it is told.
 */
export class FetchCycles {
  private readonly brokers = new Map<number, { startedMs: number; previousMs: number | undefined }>()

  /** A broker that started no fetch for this long no longer fetches for this member (its partitions moved). */
  private readonly silentAfterMs: number

  constructor(silentAfterMs = 30_000) {
    this.silentAfterMs = silentAfterMs
  }

  /** A fetch from broker `nodeId` starts at `nowMs`. Returns the read-through time, when every broker fetching has completed a fetch. */
  started(nodeId: number, nowMs: number): number | undefined {
    const known = this.brokers.get(nodeId)
    this.brokers.set(nodeId, { startedMs: nowMs, previousMs: known?.startedMs })
    let lowest: number | undefined
    for (const [node, { startedMs, previousMs }] of this.brokers) {
      if (nowMs - startedMs > this.silentAfterMs) {
        this.brokers.delete(node)
        continue
      }
      if (previousMs === undefined) return undefined
      if (lowest === undefined || previousMs < lowest) lowest = previousMs
    }
    return lowest
  }

  /** Forgets every fetch: after a pause, a resume or a rejoin, only fetches started afterwards count. */
  reset(): void {
    this.brokers.clear()
  }
}
