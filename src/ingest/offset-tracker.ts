import type { CommitOffset } from './consumer-port.ts'

/** One consumed Kafka record, as the offset tracker knows it. */
export interface RecordRef {
  readonly topic: string
  readonly partition: number
  /** The record's offset (Kafka int64 as a decimal string). */
  readonly offset: string
  /** The partition's assignment generation when the record was read; stale refs are ignored. */
  readonly generation: number
}

export type { CommitOffset }

interface PartitionState {
  generation: number
  /** Unfinished records, offset → holds, in offset order (Kafka delivers a partition in order). */
  pending: Map<number, number>
  /** One past the highest offset seen. */
  next: number
  /** The last committable offset handed out by `committable`. */
  committed: number
}

const key = (topic: string, partition: number): string => `${topic}\u0000${partition}`

/**
 * Tracks, per partition, which records are still held by unfinished work and so which offset may
 * be committed: the lowest offset still held, or one past the highest seen when nothing is held.
 * A record is opened with one hold (the reading itself), gets one more hold per trace it fed,
 * and is finished when every hold is released. Pure and synchronous.
 */
export class OffsetTracker {
  private readonly partitions = new Map<string, PartitionState>()
  private generation = 0

  /**
   * Registers a record just read, held once until `release` is called for the reading itself.
   * A record read again (a retried fetch) is held once more, keeping every earlier hold.
   */
  open(topic: string, partition: number, offset: string): RecordRef {
    const id = key(topic, partition)
    const n = Number(offset)
    let state = this.partitions.get(id)
    if (state === undefined) {
      state = { generation: ++this.generation, pending: new Map(), next: n, committed: -1 }
      this.partitions.set(id, state)
    }
    if (n >= state.next) {
      state.pending.set(n, 1)
      state.next = n + 1
    } else {
      const holds = state.pending.get(n)
      if (holds !== undefined) state.pending.set(n, holds + 1)
      else {
        state.pending.set(n, 1)
        state.pending = new Map([...state.pending].sort((a, b) => a[0] - b[0]))
      }
    }
    return { topic, partition, offset, generation: state.generation }
  }

  /** Adds holds on a record (one per trace that holds its spans). */
  hold(ref: RecordRef, count = 1): void {
    if (count <= 0) return
    const state = this.current(ref)
    if (state === undefined) return
    const n = Number(ref.offset)
    const holds = state.pending.get(n)
    if (holds !== undefined) state.pending.set(n, holds + count)
  }

  /** Releases one hold on a record; the record is finished when none is left. Stale refs are ignored. */
  release(ref: RecordRef): void {
    const state = this.current(ref)
    if (state === undefined) return
    const n = Number(ref.offset)
    const holds = state.pending.get(n)
    if (holds === undefined) return
    if (holds <= 1) state.pending.delete(n)
    else state.pending.set(n, holds - 1)
  }

  /** The committable offset of one partition, or undefined when nothing was read from it. */
  position(topic: string, partition: number): string | undefined {
    const state = this.partitions.get(key(topic, partition))
    return state === undefined ? undefined : String(this.lowestHeld(state))
  }

  /** One past the highest offset read from a partition (where reading continues), if any was read. */
  readPosition(topic: string, partition: number): string | undefined {
    const state = this.partitions.get(key(topic, partition))
    return state === undefined ? undefined : String(state.next)
  }

  /** Number of records still held, over all partitions. */
  pendingRecords(): number {
    let n = 0
    for (const state of this.partitions.values()) n += state.pending.size
    return n
  }

  /**
   * Offsets that moved since the last call, one per partition; call `committed` after the commit
   * succeeded (a failed commit is offered again next time).
   */
  committable(): CommitOffset[] {
    const out: CommitOffset[] = []
    for (const [id, state] of this.partitions) {
      const offset = this.lowestHeld(state)
      if (offset <= state.committed) continue
      const [topic, partition] = id.split('\u0000') as [string, string]
      out.push({ topic, partition: Number(partition), offset: String(offset) })
    }
    return out
  }

  /** Records that these offsets were committed. */
  committed(offsets: readonly CommitOffset[]): void {
    for (const o of offsets) {
      const state = this.partitions.get(key(o.topic, o.partition))
      if (state !== undefined) state.committed = Math.max(state.committed, Number(o.offset))
    }
  }

  /**
   * Offers every partition's offset again at the next `committable`, even if it was committed: a
   * commit kafkajs 2.2.4 answered while its consumer was restarting was never sent (its runner
   * returns from `commitOffsets` without committing when it is not running, also when a commit
   * failed as it stopped), and without this a partition whose last records were read before such a
   * commit would never be committed further. Called after each group join.
   */
  commitAgain(): void {
    for (const state of this.partitions.values()) state.committed = -1
  }

  /** Forgets a partition (revoked by a rebalance): its outstanding refs become stale. */
  revoke(topic: string, partition: number): void {
    this.partitions.delete(key(topic, partition))
  }

  /** The partitions being tracked. */
  assigned(): { topic: string; partition: number }[] {
    return [...this.partitions.keys()].map((id) => {
      const [topic, partition] = id.split('\u0000') as [string, string]
      return { topic, partition: Number(partition) }
    })
  }

  private current(ref: RecordRef): PartitionState | undefined {
    const state = this.partitions.get(key(ref.topic, ref.partition))
    return state !== undefined && state.generation === ref.generation ? state : undefined
  }

  private lowestHeld(state: PartitionState): number {
    for (const offset of state.pending.keys()) return offset
    return state.next
  }
}
