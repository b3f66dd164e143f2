import { spanCapFor } from '../config/buffer-limits.ts'
import { configDefaults } from '../config/defaults.ts'
import type { Logger } from '../ops/logger.ts'
import type { RetryPolicy, Sleep } from '../sink/retry-policy.ts'
import { bufferHoldsReading, type IngestLoad, shouldPause } from './backpressure.ts'
import type { ConsumerHandlers, ConsumerPort, RecordBatch } from './consumer-port.ts'
import type { DeadLetterProducer } from './dead-letter-producer.ts'
import type { OtlpEncodingOption } from './decode/index.ts'
import type { DeliveryTarget } from './delivery-queue.ts'
import { createOffsetCommitter, type OffsetCommitter } from './offset-committer.ts'
import { OffsetTracker, type RecordRef } from './offset-tracker.ts'
import { type AssignmentContext, applyAssignment } from './partition-assignment.ts'
import { createReadProgress, type ReadProgress } from './read-progress.ts'
import { createRecordReader, type RecordReader } from './record-reader.ts'
import type { SamplingDoor } from './sampling-door.ts'
import { type ReleaseReason, TraceAssembler, type TraceAssemblerOptions } from './trace-assembler.ts'
import {
  createTraceHandoff,
  type HandoffCounters,
  type IngestedTrace,
  type TraceHandoff,
} from './trace-handoff.ts'

export type { IngestedTrace }

/** Settings of the span source. */
export interface SpanSourceOptions<R>
  extends Omit<TraceAssemblerOptions, 'now' | 'watermark' | 'backlogWatermark' | 'readThrough'> {
  /** The consumer-group member to read through (kafkajs, supervised, or in memory). */
  consumer: ConsumerPort
  topic: string
  encoding: OtlpEncodingOption
  deadLetters: DeadLetterProducer
  /**
   * Scores a trace that shows GenAI activity (`trace.hasGenAi`); called once per released trace
   * and never retried. Traces without it are finished without a call.
   */
  process(trace: IngestedTrace): Promise<R>
  /**
   * Traces no scorer can score (`samplingDoorOf` the scorers) are passed by as they are read: not
   * decoded beyond their trace ids, buffered or scored; their records' offsets advance at once.
   * Absent: every trace comes in.
   */
  door?: SamplingDoor
  /** Where results go; a trace's records are committable once every target acknowledged its result. */
  targets: readonly DeliveryTarget<R>[]
  /** Most traces scored or delivered at once. Default `assembly.maxInFlightTraces` (256). */
  maxInFlightTraces?: number
  /** Pause reading when released traces not yet delivered reach this. Default 1,000. */
  maxQueuedTraces?: number
  /** Pause reading when buffered spans reach this. Default 80% of `maxBufferedSpans`. */
  pauseAtBufferedSpans?: number
  /** Pause reading when buffered bytes reach this. Default 80% of `maxBufferedBytes`. */
  pauseAtBufferedBytes?: number
  /**
   * A partition read this far (record time) past the slowest one is held back until it is within
   * half of it (see `createReadProgress`). Default 10 × `settleMs`.
   */
  alignWindowMs?: number
  /** How often ready traces, backpressure and commits are looked at. Default 100 ms. */
  tickMs?: number
  /**
   * How often finished offsets are committed, and at once when the source caught up (at most once
   * an interval besides); `false`: only when asked (`commit()`, `stop`), as a replay. Default 1,000 ms.
   */
  commitIntervalMs?: number | false
  /** A commit not answered after this long counts as failed. Default 60,000 ms. */
  commitTimeoutMs?: number
  /** Backoff of failed deliveries (default `retryPolicies.delivery`). */
  deliveryPolicy?: RetryPolicy
  /** How long `stop` waits for in-flight traces. Default `configDefaults.shutdown.drainTimeoutMs` (30 s). */
  drainTimeoutMs?: number
  /** Where each partition is read from instead of the committed offset (a replay). */
  startOffsets?: ReadonlyMap<number, string>
  /** Where each partition's reading ends, exclusive (a replay): `caughtUp` resolves when all got there. */
  endOffsets?: ReadonlyMap<number, string>
  logger: Logger
  now?: () => number
  sleep?: Sleep
  /**
   * Told every (re)assignment, after it was applied and before any batch of it is read (the
   * score ledger loads the partitions listed, drops the others).
   */
  onAssigned?(partitions: readonly number[]): void
}

/** Counters and gauges of the source, for `/metrics` and tests. */
export interface SpanSourceStats extends HandoffCounters {
  records: number
  emptyRecords: number
  /** Spans read, those passed by included. */
  spans: number
  /**
   * Spans and traces the sampling door passed by: rejected as they were read, or held on probation
   * for an `alwaysScore` claim that did not come (then released unscored, undecoded).
   */
  passedBySpans: number
  passedByTraces: number
  deadLetters: number
  lateSpans: number
  /** Of `lateSpans`, by what released their trace (see `AssemblerStats`). */
  lateSpansByRelease: Record<ReleaseReason, number>
  bufferedSpans: number
  bufferedBytes: number
  openTraces: number
  queuedTraces: number
  inFlightTraces: number
  pendingRecords: number
  commits: number
  paused: boolean
  /** Partitions held back now because they were read too far ahead of the slowest one (see `createReadProgress`). */
  heldPartitions: number
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
 * Settling follows the data when partitions advance unevenly (see PartitionWatermark), and a
 * trace's quiet period runs only while the consumer's fetches go on (see FetchCycles), except
 * while a full buffer holds reading paused: no partition can advance then, and traces waiting for
 * a lagging one would wait for maxTraceAgeMs; they settle by the clock instead.
 */
export function createSpanSource<R>(options: SpanSourceOptions<R>): SpanSource {
  const { consumer, topic, logger } = options
  const now = options.now ?? Date.now
  const progress = createReadProgress({ ...options, now, bufferFull: () => backpressure.bufferFull() })
  const { watermark } = progress
  const assembler = new TraceAssembler<RecordRef>({
    ...options,
    now,
    watermark: progress.watermarkNow,
    backlogWatermark: progress.backlogWatermarkNow,
    readThrough: progress.readThroughNow,
  })
  const tracker = new OffsetTracker()
  const reader = createRecordReader({ ...options, assembler, tracker, watermark })
  const failure = settleOnce<unknown>()
  const caughtUp = settleOnce<void>()
  const handoff = createTraceHandoff({
    ...options,
    assembler,
    tracker,
    maxInFlight: options.maxInFlightTraces ?? configDefaults.assembly.maxInFlightTraces,
    policy: options.deliveryPolicy,
    onUndeliverable: failure.settle,
  })
  const committer = committerOf(options, tracker, now)
  const backpressure = backpressureOf(options, consumer, logger)
  const load = () => ({
    ...assemblerLoad(assembler),
    queuedTraces: handoff.queue.waiting() + handoff.queue.inFlight(),
  })
  const ends = options.endOffsets && new Map([...options.endOffsets].map(([p, o]) => [p, Number(o)]))
  const startOffsets = new Map(options.startOffsets ?? [])
  const state: SourceState = { joined: false, started: false, stopping: false, rebalances: 0, crashes: 0 }
  let timer: NodeJS.Timeout | undefined
  const assignment = { ...options, tracker, assembler, watermark, queue: handoff.queue, startOffsets }
  const handlers = consumerHandlers({
    ...options,
    state,
    reader,
    handoff,
    ends,
    assignment,
    committer,
    failure,
    progress,
  })

  const logLateSpans = lateSpanLog(assembler, logger)
  const tick = () => {
    if (state.stopping) return
    logLateSpans()
    progress.align()
    // Judged before this tick's releases: a queue that downstream did not drain in a whole tick.
    backpressure.apply(load())
    handoff.collectReady()
    committer.tick()
    committer.whenCaughtUp()
    if (ends !== undefined && reachedEnds(tracker, topic, ends, startOffsets)) caughtUp.settle()
  }

  return {
    failed: failure.promise,
    caughtUp: caughtUp.promise,
    async start() {
      state.stopping = false
      state.started = true
      progress.started()
      await consumer.start(topic, handlers)
      timer = setInterval(tick, options.tickMs ?? 100)
      timer.unref()
    },
    async stop({ commit = true } = {}) {
      if (!state.started) return
      state.started = false
      state.stopping = true
      clearInterval(timer)
      await stopSource(options, handoff, committer, commit)
    },
    commit: () => committer.commitNow(),
    flush: handoff.flush,
    drained: () => handoff.queue.drained(),
    ready: () => state.started && state.joined && !state.stopping,
    stats: () =>
      sourceStats({
        reader,
        handoff,
        assembler,
        deadLetters: options.deadLetters,
        state,
        tracker,
        committer,
        backpressure,
        progress,
      }),
  }
}

/**
 * Stops reading but stays in the group (a consumer that left can no longer commit), waits for
 * in-flight traces up to `drainTimeoutMs`, commits what is finished (unless told not to) and leaves.
 */
async function stopSource<R>(
  options: SpanSourceOptions<R>,
  handoff: TraceHandoff,
  committer: ReturnType<typeof createOffsetCommitter>,
  commit: boolean,
): Promise<void> {
  options.consumer.pause()
  handoff.collectReady()
  await waitAtMost(handoff.queue.drained(), options.drainTimeoutMs ?? configDefaults.shutdown.drainTimeoutMs)
  handoff.queue.stop()
  options.deadLetters.stop()
  if (commit) await committer.commitNow()
  await options.consumer.stop()
}

/** The offset committer of a source: every `commitIntervalMs` (default 1 s; `false`: only when asked). */
function committerOf<R>(options: SpanSourceOptions<R>, tracker: OffsetTracker, now: () => number) {
  const { consumer, commitIntervalMs } = options
  return createOffsetCommitter({
    tracker,
    commit: (offsets) => consumer.commit(offsets),
    intervalMs: commitIntervalMs === false ? Infinity : (commitIntervalMs ?? 1_000),
    timeoutMs: options.commitTimeoutMs,
    logger: options.logger,
    now,
  })
}

/** The source's counters and gauges (`SpanSource.stats`), read from its parts. */
function sourceStats(parts: {
  reader: ReturnType<typeof createRecordReader>
  handoff: ReturnType<typeof createTraceHandoff>
  assembler: TraceAssembler<RecordRef>
  deadLetters: { count(): number }
  state: SourceState
  tracker: OffsetTracker
  committer: ReturnType<typeof createOffsetCommitter>
  backpressure: Backpressure
  progress: ReadProgress
}) {
  const { reader, handoff, assembler, state, tracker, committer, backpressure } = parts
  return {
    ...reader.counters(),
    ...handoff.counters(),
    ...assemblerStats(assembler, reader),
    deadLetters: parts.deadLetters.count(),
    rebalances: state.rebalances,
    crashes: state.crashes,
    queuedTraces: handoff.queue.waiting(),
    inFlightTraces: handoff.queue.inFlight(),
    pendingRecords: tracker.pendingRecords(),
    commits: committer.commits(),
    paused: backpressure.paused(),
    heldPartitions: parts.progress.heldPartitions(),
  }
}

/** The consumer's pause state, driven by the load. */
interface Backpressure {
  paused(): boolean
  /** True while reading is paused and the buffer alone would keep it so (see `bufferHoldsReading`). */
  bufferFull(): boolean
  apply(load: IngestLoad): void
}

/** Lifecycle and event counts of a source. */
interface SourceState {
  joined: boolean
  started: boolean
  stopping: boolean
  rebalances: number
  crashes: number
}

/** What the consumer's events act on. */
interface HandlerContext {
  topic: string
  logger: Logger
  state: SourceState
  reader: RecordReader
  handoff: TraceHandoff
  ends: ReadonlyMap<number, number> | undefined
  assignment: AssignmentContext
  committer: OffsetCommitter
  failure: { settle: (error: unknown) => void }
  onAssigned?(partitions: readonly number[]): void
  progress: ReadProgress
}

/** Longest a rebalance holds deliveries: kafkajs's default rebalance timeout (a join takes no longer). */
const MAX_REBALANCE_HOLD_MS = 60_000

/** The source's answers to its consumer: read batches, apply (re)assignments, note crashes. */
function consumerHandlers(ctx: HandlerContext): ConsumerHandlers {
  const { state, logger, topic } = ctx
  /** Partitions this member owns now; batches of others are ignored. */
  let assigned = new Set<number>()
  return {
    onBatch(batch: RecordBatch) {
      if (state.stopping || !assigned.has(batch.partition)) return undefined
      const last = ctx.reader.read(batch, ctx.ends?.get(batch.partition))
      ctx.handoff.collectReady()
      return last ?? lastOffsetIfPastEnd(batch, ctx.ends)
    },
    onReadThrough: (epochMs) => ctx.progress.readThrough(epochMs),
    onRebalancing() {
      // Until the member joined again, no delivery starts: a partition it loses has a new owner
      // that scores its runs again, and two owners delivering could deliver two different answers.
      ctx.handoff.queue.hold(MAX_REBALANCE_HOLD_MS)
    },
    onAssigned(partitions) {
      state.rebalances++
      state.joined = true
      assigned = new Set(partitions)
      applyAssignment(partitions, ctx.assignment)
      ctx.onAssigned?.(partitions)
      ctx.committer.forgetInProgress() // a commit sent before the join may never be answered
      logger.info({ topic, partitions }, 'joined the consumer group')
    },
    onCrash(error, recovering) {
      state.crashes++
      state.joined = false
      if (recovering) logger.warn({ err: error }, 'kafka consumer crashed; it is being restarted')
      else {
        logger.error({ err: error }, 'kafka consumer crashed and could not be recovered')
        ctx.failure.settle(error)
      }
    },
  }
}

/** The assembler's part of the source's stats (what it passed by is added to the reader's). */
function assemblerStats(assembler: TraceAssembler<RecordRef>, reader: RecordReader) {
  const stats = assembler.stats()
  const { lateSpans, lateSpansByRelease, bufferedSpans, bufferedBytes, openTraces } = stats
  const { passedBySpans, passedByTraces } = stats
  const read = reader.counters()
  return {
    lateSpans,
    lateSpansByRelease,
    bufferedSpans,
    bufferedBytes,
    openTraces,
    passedBySpans: read.passedBySpans + passedBySpans,
    passedByTraces: read.passedByTraces + passedByTraces,
  }
}

/** What each release reason's late spans ask the user to tune. */
const LATE_HINT: Record<ReleaseReason, string> = {
  settled:
    'it had been quiet for assembly.settleMs: raise it if producers export the spans of one trace further apart',
  age: 'it had been open for assembly.maxTraceAgeMs: raise it if a partition lags behind the others that long',
  cap: 'the span buffer was full: raise assembly.maxBufferedBytes',
  flush: 'the buffer was flushed (shutdown, end of input)',
}

/**
 * Logs, once per release reason, that spans arrived after their trace was released and was
 * scored without them, and what to tune (the counter on /metrics counts every one).
 */
function lateSpanLog(assembler: TraceAssembler<RecordRef>, logger: Logger): () => void {
  const logged = new Set<ReleaseReason>()
  return () => {
    const late = assembler.stats().lateSpansByRelease
    for (const reason of Object.keys(late) as ReleaseReason[]) {
      if (late[reason] === 0 || logged.has(reason)) continue
      logged.add(reason)
      logger.warn(
        { releasedBy: reason, lateSpans: late[reason] },
        `spans arrived after their trace was released and scored without them: ${LATE_HINT[reason]}. ` +
          'Counted in tracescore_late_spans_total{released_by}; logged once per cause',
      )
    }
  }
}

/** What of the assembler's totals backpressure looks at. */
function assemblerLoad(assembler: TraceAssembler<RecordRef>) {
  const { bufferedSpans, bufferedBytes } = assembler.stats()
  return { bufferedSpans, bufferedBytes }
}

/** Pauses and resumes the consumer as `shouldPause` decides, logging each change. */
function backpressureOf(
  options: Pick<
    SpanSourceOptions<unknown>,
    | 'pauseAtBufferedSpans'
    | 'pauseAtBufferedBytes'
    | 'maxBufferedSpans'
    | 'maxBufferedBytes'
    | 'maxQueuedTraces'
  >,
  consumer: ConsumerPort,
  logger: Logger,
): Backpressure {
  const maxBufferedBytes = options.maxBufferedBytes ?? configDefaults.assembly.maxBufferedBytes
  const maxBufferedSpans = options.maxBufferedSpans ?? spanCapFor(maxBufferedBytes)
  const limits = {
    pauseAtBufferedSpans: options.pauseAtBufferedSpans ?? Math.floor(maxBufferedSpans * 0.8),
    pauseAtBufferedBytes: options.pauseAtBufferedBytes ?? Math.floor(maxBufferedBytes * 0.8),
    maxQueuedTraces: options.maxQueuedTraces ?? 1_000,
  }
  let paused = false
  let bufferFull = false
  return {
    paused: () => paused,
    bufferFull: () => bufferFull,
    apply(load: IngestLoad) {
      const next = shouldPause(paused, load, limits)
      bufferFull = next && bufferHoldsReading(load, limits)
      if (next === paused) return
      paused = next
      if (paused) consumer.pause()
      else consumer.resume()
      logger.info(load, paused ? 'ingest paused: buffer or downstream full' : 'ingest resumed')
    },
  }
}

/** True when every partition was read up to its end offset (partitions not read yet: from their start). */
function reachedEnds(
  tracker: OffsetTracker,
  topic: string,
  ends: ReadonlyMap<number, number>,
  starts: ReadonlyMap<number, string>,
): boolean {
  for (const [partition, end] of ends) {
    const position = Number(tracker.readPosition(topic, partition) ?? starts.get(partition) ?? 0)
    if (position < end) return false
  }
  return true
}

/** A batch wholly at or past its partition's end offset is consumed without reading (a replay's tail). */
function lastOffsetIfPastEnd(batch: RecordBatch, ends: ReadonlyMap<number, number> | undefined) {
  const end = ends?.get(batch.partition)
  const first = batch.records[0]
  if (end === undefined || first === undefined || Number(first.offset) < end) return undefined
  return batch.records[batch.records.length - 1]!.offset
}

/** A promise and the function that settles it (later calls are ignored). */
function settleOnce<T>(): { promise: Promise<T>; settle: (value: T) => void } {
  let settle: (value: T) => void = () => {}
  const promise = new Promise<T>((resolve) => {
    settle = resolve
  })
  return { promise, settle }
}

/** Resolves when `promise` settles or after `ms`, whichever comes first. */
async function waitAtMost(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))])
  clearTimeout(timer)
}
