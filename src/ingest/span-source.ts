import type { RetryPolicy, Sleep } from '../sink/retry-policy.ts'
import { shouldPause } from './backpressure.ts'
import type { ConsumerHandlers, ConsumerPort, RecordBatch } from './consumer-port.ts'
import type { DeadLetterProducer } from './dead-letter-producer.ts'
import type { OtlpEncoding } from './decode/index.ts'
import { createDeliveryQueue, type DeliveryOutcome, type DeliveryTarget } from './delivery-queue.ts'
import type { IngestLogger } from './ingest-logger.ts'
import { createOffsetCommitter } from './offset-committer.ts'
import { OffsetTracker, type RecordRef } from './offset-tracker.ts'
import { createRecordReader } from './record-reader.ts'
import { type ReadyTrace, TraceAssembler, type TraceAssemblerOptions } from './trace-assembler.ts'

/** A trace ready for scoring, with the Kafka records it came from. */
export type IngestedTrace = ReadyTrace<RecordRef>

/** Settings of the span source. */
export interface SpanSourceOptions<R> extends Omit<TraceAssemblerOptions, 'now'> {
  /** The consumer-group member to read through (kafkajs, supervised, or in memory). */
  consumer: ConsumerPort
  topic: string
  encoding: OtlpEncoding
  deadLetters: DeadLetterProducer
  /**
   * Scores a trace that holds agent runs (`trace.agentSpanIds`); called once per released trace and
   * never retried. Traces without agent runs are finished without a call.
   */
  process(trace: IngestedTrace): Promise<R>
  /** Where results go; a trace's records are committable once every target acknowledged its result. */
  targets: readonly DeliveryTarget<R>[]
  /** Most traces scored or delivered at once. Default 256. */
  maxInFlightTraces?: number
  /** Pause reading when released traces not yet delivered reach this. Default 1,000. */
  maxQueuedTraces?: number
  /** Pause reading when buffered spans reach this. Default 80% of `maxBufferedSpans` (200,000). */
  pauseAtBufferedSpans?: number
  /** How often ready traces, backpressure and commits are looked at. Default 100 ms. */
  tickMs?: number
  /** How often finished offsets are committed; `false` never commits (a replay). Default 1,000 ms. */
  commitIntervalMs?: number | false
  /** A commit not answered after this long counts as failed. Default 60,000 ms. */
  commitTimeoutMs?: number
  /** Backoff of failed deliveries (default `retryPolicies.delivery`). */
  deliveryPolicy?: RetryPolicy
  /** How long `stop` waits for in-flight traces. Default 30,000 ms. */
  drainTimeoutMs?: number
  /** Where each partition is read from instead of the committed offset (a replay). */
  startOffsets?: ReadonlyMap<number, string>
  /** Where each partition's reading ends, exclusive (a replay): `caughtUp` resolves when all got there. */
  endOffsets?: ReadonlyMap<number, string>
  logger: IngestLogger
  now?: () => number
  sleep?: Sleep
}

/** Counters and gauges of the source, for `/metrics` and tests. */
export interface SpanSourceStats {
  records: number
  emptyRecords: number
  spans: number
  deadLetters: number
  tracesReleased: number
  tracesDelivered: number
  tracesWithoutRuns: number
  /** Traces whose scoring threw (logged; nothing to deliver). */
  tracesFailed: number
  /** Failed delivery attempts (one per trace and target). */
  deliveryFailures: number
  lateSpans: number
  bufferedSpans: number
  bufferedBytes: number
  openTraces: number
  queuedTraces: number
  inFlightTraces: number
  pendingRecords: number
  commits: number
  paused: boolean
  rebalances: number
  crashes: number
}

/** A running span source. */
export interface SpanSource {
  start(): Promise<void>
  /**
   * Stops reading, waits for in-flight traces (up to `drainTimeoutMs`), commits what is finished
   * and leaves the group. `{ commit: false }` skips the final commit.
   */
  stop(options?: { commit?: boolean }): Promise<void>
  /** Commits every finished offset now. */
  commit(): Promise<void>
  /** Releases every buffered trace now, complete or not (the end of a replay). */
  flush(): void
  /** Resolves when nothing is buffered, queued or in flight. */
  drained(): Promise<void>
  stats(): SpanSourceStats
  /** True while the consumer is in its group and reading: started, joined, not crashed, not stopping. */
  ready(): boolean
  /** Resolves with the error when the consumer died for good (its supervisor gave up). */
  readonly failed: Promise<unknown>
  /** Resolves when every partition was read up to its `endOffsets` entry (never without them). */
  readonly caughtUp: Promise<void>
}

/**
 * The at-least-once core: reads OTLP records through a consumer port, assembles traces, scores
 * each released trace once and delivers the result until every target acknowledged it, and
 * commits an offset only when every trace fed by the records below it is done. Undecodable
 * records go to the dead letters; reading pauses while the buffer or the delivery queue is full.
 */
export function createSpanSource<R>(options: SpanSourceOptions<R>): SpanSource {
  const { consumer, topic, logger } = options
  const now = options.now ?? Date.now
  const pauseAt = {
    pauseAtBufferedSpans:
      options.pauseAtBufferedSpans ?? Math.floor((options.maxBufferedSpans ?? 200_000) * 0.8),
    maxQueuedTraces: options.maxQueuedTraces ?? 1_000,
  }
  const assembler = new TraceAssembler<RecordRef>({ ...options, now })
  const tracker = new OffsetTracker()
  const reader = createRecordReader({ ...options, assembler, tracker })
  const counters = { tracesReleased: 0, tracesDelivered: 0, tracesWithoutRuns: 0, tracesFailed: 0 }
  const more = { deliveryFailures: 0, rebalances: 0, crashes: 0 }
  const committer = createOffsetCommitter({
    tracker,
    commit: (offsets) => consumer.commit(offsets),
    intervalMs: options.commitIntervalMs === false ? Infinity : (options.commitIntervalMs ?? 1_000),
    timeoutMs: options.commitTimeoutMs,
    logger,
    now,
  })
  const finish = (trace: IngestedTrace) => {
    for (const ref of trace.recordRefs) tracker.release(ref)
  }
  const onDone = (trace: IngestedTrace, outcome: DeliveryOutcome, error?: unknown) => {
    if (outcome === 'abandoned') return // its offsets wait: read again after a restart
    if (outcome === 'undeliverable') {
      logger.error({ err: error, traceId: trace.traceId }, 'delivery given up; its offsets stay uncommitted')
      reportFailure(error)
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
    maxInFlight: options.maxInFlightTraces ?? 256,
    policy: options.deliveryPolicy,
    sleep: options.sleep,
    onDone,
    onFailure(trace, target, error, attempt) {
      more.deliveryFailures++
      // The first failure and then every tenth: a backend that is down for long would flood the log.
      if (attempt % 10 === 0)
        logger.warn(
          { err: error, traceId: trace.traceId, sink: target, attempt: attempt + 1 },
          'delivery failed; retrying it (not the scoring), offsets wait',
        )
    },
  })

  /** Partitions this member owns now; batches of others are ignored. */
  let assigned = new Set<number>()
  let joined = false
  let started = false
  let stopping = false
  let paused = false
  let timer: NodeJS.Timeout | undefined
  let reportFailure: (error: unknown) => void = () => {}
  const failed = new Promise<unknown>((resolve) => {
    reportFailure = resolve
  })
  let reportCaughtUp: () => void = () => {}
  const caughtUp = new Promise<void>((resolve) => {
    reportCaughtUp = resolve
  })
  const ends = options.endOffsets
    ? new Map([...options.endOffsets].map(([p, o]) => [p, Number(o)]))
    : undefined
  const startsPending = new Map(options.startOffsets ?? [])

  const collectReady = () => {
    const ready = assembler.takeReady()
    if (ready.length === 0) return
    counters.tracesReleased += ready.length
    const withRuns: IngestedTrace[] = []
    for (const trace of ready) {
      if (trace.agentSpanIds.length > 0) withRuns.push(trace)
      else {
        counters.tracesWithoutRuns++
        finish(trace)
      }
    }
    queue.push(withRuns)
  }

  const applyBackpressure = () => {
    const load = {
      bufferedSpans: assembler.stats().bufferedSpans,
      queuedTraces: queue.waiting() + queue.inFlight(),
    }
    const next = shouldPause(paused, load, pauseAt)
    if (next === paused) return
    paused = next
    if (paused) consumer.pause()
    else consumer.resume()
    logger.info(load, paused ? 'ingest paused: buffer or downstream full' : 'ingest resumed')
  }

  const checkCaughtUp = () => {
    if (ends === undefined) return
    for (const [partition, end] of ends) {
      const position = Number(tracker.readPosition(topic, partition) ?? startsPending.get(partition) ?? 0)
      if (position < end) return
    }
    reportCaughtUp()
  }

  const tick = () => {
    if (stopping) return
    // Judged before this tick's releases: a queue that downstream did not drain in a whole tick.
    applyBackpressure()
    collectReady()
    committer.tick()
    checkCaughtUp()
  }

  const handlers: ConsumerHandlers = {
    onBatch(batch: RecordBatch) {
      if (stopping || !assigned.has(batch.partition)) return undefined
      const last = reader.read(batch, ends?.get(batch.partition))
      collectReady()
      applyBackpressure() // before the next fetch, not only every tick
      return last ?? lastOffsetIfPastEnd(batch, ends)
    },
    onAssigned(partitions) {
      more.rebalances++
      joined = true
      assigned = new Set(partitions)
      keepOrRevoke(partitions)
      logger.info({ topic, partitions }, 'joined the consumer group')
    },
    onCrash(error, recovering) {
      more.crashes++
      joined = false
      if (recovering) {
        logger.warn({ err: error }, 'kafka consumer crashed; it is being restarted')
        return
      }
      logger.error({ err: error }, 'kafka consumer crashed and could not be recovered')
      reportFailure(error)
    },
  }

  /**
   * After a join, kafkajs reads every assigned partition from its committed offset again.
   * Partitions kept continue where reading was (their buffered traces and holds stay valid); the
   * state of lost ones is dropped (the new owner reads them): their open and waiting traces go,
   * traces already being scored or delivered finish (their scores are not wasted).
   */
  const keepOrRevoke = (partitions: readonly number[]) => {
    const lost = new Set<number>()
    for (const { partition } of tracker.assigned()) {
      const position = tracker.readPosition(topic, partition)
      if (partitions.includes(partition) && position !== undefined) consumer.seek(partition, position)
      else {
        tracker.revoke(topic, partition)
        lost.add(partition)
      }
    }
    for (const partition of partitions) {
      const start = startsPending.get(partition)
      if (start !== undefined && tracker.readPosition(topic, partition) === undefined)
        consumer.seek(partition, start)
    }
    if (lost.size === 0) return
    const isLost = (ref: RecordRef) => lost.has(ref.partition)
    assembler.discard(isLost)
    const dropped = queue.drop((trace) => trace.recordRefs.every(isLost))
    assembler.forget(dropped.map((t) => t.traceId))
    logger.info({ topic, revoked: [...lost], droppedTraces: dropped.length }, 'partitions revoked')
  }

  return {
    failed,
    caughtUp,
    async start() {
      stopping = false
      started = true
      await consumer.start(topic, handlers)
      timer = setInterval(tick, options.tickMs ?? 100)
      timer.unref()
    },
    async stop({ commit = true } = {}) {
      if (!started) return
      started = false
      stopping = true
      // Stop reading but stay in the group (a consumer that left can no longer commit).
      consumer.pause()
      collectReady()
      await waitAtMost(queue.drained(), options.drainTimeoutMs ?? 30_000)
      queue.stop()
      options.deadLetters.stop()
      clearInterval(timer)
      if (commit) await committer.commitNow()
      await consumer.stop()
    },
    commit: () => committer.commitNow(),
    flush() {
      const traces = assembler.flush()
      counters.tracesReleased += traces.length
      for (const trace of traces) {
        if (trace.agentSpanIds.length > 0) queue.push([trace])
        else {
          counters.tracesWithoutRuns++
          finish(trace)
        }
      }
    },
    drained: () => queue.drained(),
    ready: () => started && joined && !stopping,
    stats(): SpanSourceStats {
      const a = assembler.stats()
      return {
        ...reader.counters(),
        deadLetters: options.deadLetters.count(),
        ...counters,
        ...more,
        lateSpans: a.lateSpans,
        bufferedSpans: a.bufferedSpans,
        bufferedBytes: a.bufferedBytes,
        openTraces: a.openTraces,
        queuedTraces: queue.waiting(),
        inFlightTraces: queue.inFlight(),
        pendingRecords: tracker.pendingRecords(),
        commits: committer.commits(),
        paused,
      }
    },
  }
}

/** A batch wholly at or past its partition's end offset is consumed without reading (a replay's tail). */
function lastOffsetIfPastEnd(batch: RecordBatch, ends: ReadonlyMap<number, number> | undefined) {
  const end = ends?.get(batch.partition)
  const first = batch.records[0]
  if (end === undefined || first === undefined || Number(first.offset) < end) return undefined
  return batch.records[batch.records.length - 1]!.offset
}

/** Resolves when `promise` settles or after `ms`, whichever comes first. */
async function waitAtMost(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))])
  clearTimeout(timer)
}
