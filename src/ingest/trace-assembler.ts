import { spanCapFor } from '../config/buffer-limits.ts'
import { configDefaults } from '../config/defaults.ts'
import type { LogRecord, Span } from '../model/index.ts'
import { KeyedMinHeap } from './keyed-min-heap.ts'
import { attachLogRecords } from './log-record-events.ts'
import { type SpanBatch, spanArrayBatch } from './span-batch.ts'

/** Settings of the trace assembler; every duration is in milliseconds of the injected clock. */
export interface TraceAssemblerOptions {
  /**
   * Decides which spans are agent-run spans (the transform stage's `isAgentRunSpan`). Asked only
   * of a batch's candidates (`SpanBatch.candidate`): from protobuf, spans with a role attribute
   * key, a `gen_ai.*` event or a name starting with `ai.`; any other span counts as no agent span.
   * From protobuf it gets the span's role view (`role-view.ts`): ids, parent, name, kind, times,
   * scope, resource, the role attributes (`ROLE_ATTRIBUTE_KEYS`) and the events' names only, so it
   * must decide from those (transform's role functions do: tested on every fixture span).
   */
  isAgentRunSpan: (span: Span) => boolean
  /**
   * Decides which spans show GenAI activity (the transform's `isGenAiSpan`: an agent, model or
   * tool span, or one holding a value that may hold messages). A trace with such a span is handed
   * to scoring even without an agent span, since the transform also rebuilds runs headed by other
   * spans (a CrewAI delegation headed by its tool span, smolagents steps whose agent span is
   * missing, runs of spans of no known vocabulary found around their model calls). Asked only of
   * candidates, as `isAgentRunSpan`. Default: `isAgentRunSpan`. A span the batch says may hold
   * messages (`SpanBatch.mayHoldMessages`, which a role view cannot show) shows it without asking.
   */
  isGenAiSpan?: (span: Span) => boolean
  /** The clock, epoch milliseconds. Defaults to `Date.now`. */
  now?: () => number
  /**
   * The event-time watermark of the partitions read (`PartitionWatermark.current`), epoch ms:
   * every partition not idle has been read up to a record this late. While it is defined, a trace
   * is ready only once it passed the trace's latest record time (`addBatch`'s `eventMs`) by
   * `settleMs`, on top of the quiet period on the clock. Absent, or undefined (every partition
   * idle: live traffic), the clock alone settles traces.
   */
  watermark?: () => number | undefined
  /**
   * The watermark while every partition read lags (`PartitionWatermark.backlog`: none read to its
   * end), epoch ms. While it is defined, a trace it passed by `settleMs` (its latest record time)
   * is ready without the quiet period on the clock, once a fetch started after its last span
   * arrived (`readThrough`): every partition was read past records written `settleMs` after the
   * trace's last one, in the order they were written, so a span of it still unread would be late
   * by event time. In a backlog read faster than it was written, the clock's quiet period would
   * hold every trace read in the last `settleMs` of wall time (most of the buffer). Absent, or
   * undefined: the rule above (watermark and clock).
   */
  backlogWatermark?: () => number | undefined
  /**
   * Epoch ms (on `now`'s clock) before which every record written was read, as the consumer's
   * fetches prove it (`ConsumerHandlers.onReadThrough`). The quiet period runs up to it rather than
   * up to `now`: it does not run while nothing is read (a fetch's batches handled slowly, a pause),
   * when spans of a quiet trace may wait unread. Absent or undefined: up to `now`.
   */
  readThrough?: () => number | undefined
  /**
   * Quiet period: a trace is ready when no span of it arrived for this long, and (with a
   * watermark) when the watermark passed its latest record time by this much. Default
   * `assembly.settleMs` (2,000).
   */
  settleMs?: number
  /** A trace buffered this long is finalized as it is, flagged incomplete. Default `assembly.maxTraceAgeMs` (120,000). */
  maxTraceAgeMs?: number
  /** Cap on buffered spans; beyond it the oldest traces are finalized. Default: follows `maxBufferedBytes` (`spanCapFor`). */
  maxBufferedSpans?: number
  /**
   * Cap on buffered bytes (payload bytes apportioned per span); oldest finalized first. Default
   * `assembly.maxBufferedBytes` (a quarter of the process's memory limit).
   */
  maxBufferedBytes?: number
  /** Late spans of an already released trace re-release it, superseding the earlier release. */
  rescoreLateSpans?: boolean
  /** How long a released trace id is remembered to recognise late spans. Default `maxTraceAgeMs`. */
  lateWindowMs?: number
  /** Most released trace ids remembered (oldest forgotten first). Default 100,000. */
  maxReleasedTraces?: number
}

/** Why a trace was released. */
export type ReleaseReason = 'settled' | 'age' | 'cap' | 'flush'

/** A trace handed downstream: its spans, the agent runs to score and the records it came from. */
export interface ReadyTrace<R> {
  traceId: string
  spans: Span[]
  /** Agent-run spans new in this release (ids); empty when the trace holds no new agent span. */
  agentSpanIds: string[]
  /**
   * True when the release has something to score: a first release with a GenAI span, or a
   * re-release (late agent spans, or `rescoreLateSpans`). False: finish it without scoring.
   */
  hasGenAi: boolean
  /** Agent-run spans an earlier release of this trace scored: their runs are not scored again. */
  scoredAgentSpanIds?: readonly string[]
  /** True when finalized by age, the buffer cap or a flush before the trace looked complete. */
  incomplete: boolean
  reason: ReleaseReason
  /** True when this release replaces an earlier one of the same trace (late spans, re-score). */
  supersedes: boolean
  /** The records whose spans this release holds, each once; finish them when the trace is done. */
  recordRefs: R[]
}

/** A released trace whose spans are decoded when first read: traces finished unscored never are. */
class ReleasedTraceView<R> implements ReadyTrace<R> {
  traceId: string
  agentSpanIds: string[]
  hasGenAi: boolean
  declare scoredAgentSpanIds?: readonly string[]
  incomplete: boolean
  reason: ReleaseReason
  supersedes: boolean
  recordRefs: R[]
  #held: HeldSpans | undefined
  #spans: Span[] | undefined

  constructor(
    trace: HeldSpans & { traceId: string; hasGenAi: boolean; supersedes: boolean; refs: R[] },
    agentSpanIds: string[],
    scored: readonly string[] | undefined,
    incomplete: boolean,
    reason: ReleaseReason,
  ) {
    this.traceId = trace.traceId
    this.agentSpanIds = agentSpanIds
    this.hasGenAi = trace.hasGenAi
    if (scored !== undefined) this.scoredAgentSpanIds = scored
    this.incomplete = incomplete
    this.reason = reason
    this.supersedes = trace.supersedes
    this.recordRefs = trace.refs
    this.#held = { held: trace.held } // not the trace: the assembler's queues may still list it
  }

  get spans(): Span[] {
    if (this.#spans === undefined) {
      this.#spans = decodeHeld(this.#held!)
      this.#held = undefined
    }
    return this.#spans
  }

  set spans(spans: Span[]) {
    this.#spans = spans
    this.#held = undefined
  }
}

/** What `add` did with one record's spans. */
export interface AddResult {
  /** Distinct buffered traces the record now holds spans in: finish the record after each is done. */
  traces: number
  /** Spans that arrived for traces already released. */
  lateSpans: number
}

/** Running totals of the assembler, for metrics and backpressure. */
export interface AssemblerStats {
  openTraces: number
  bufferedSpans: number
  bufferedBytes: number
  releasedTraces: number
  lateSpans: number
  /** Of `lateSpans`, by what released their trace: `settled` asks for a longer `settleMs`, `age` a longer `maxTraceAgeMs`, `cap` a larger buffer. */
  lateSpansByRelease: Record<ReleaseReason, number>
  duplicateSpans: number
  rereleasedTraces: number
  /**
   * Traces the sampling door rejected by rate and no `alwaysScore` claim took, released unscored
   * and undecoded (see `SpanBatch.rejected`), and their spans.
   */
  passedByTraces: number
  passedBySpans: number
}

/** Up to this many spans a trace checks for duplicates by scanning its spans; beyond, a Set of ids. */
const SCAN_DUPLICATES_UP_TO = 16

/**
 * Spans held for a trace, undecoded where their batch allows, as (batch, index) pairs in one array:
 * span k is `held[2k].span(held[2k + 1])` (one array per trace rather than one per field: most
 * traces are small and never scored, and each array is an allocation).
 */
interface HeldSpans {
  held: (SpanBatch | number)[]
}

/** Shared by traces not holding any yet: never written to (an array is made on the first push). */
const NONE = Object.freeze([]) as unknown as never[]

const sourceOf = (held: HeldSpans['held'], k: number) => held[2 * k] as SpanBatch
const indexOf = (held: HeldSpans['held'], k: number) => held[2 * k + 1] as number
const countOf = (held: HeldSpans['held']) => held.length >> 1

/** Makes the batches of the spans not yet owned (see `SpanBatch.own`) hold only their own bytes. */
function ownBytes(trace: HeldSpans & { ownedUpTo: number }): void {
  let last: SpanBatch | undefined
  const count = countOf(trace.held)
  for (let k = trace.ownedUpTo; k < count; k++) {
    const source = sourceOf(trace.held, k)
    if (source !== last) source.own?.()
    last = source
  }
  trace.ownedUpTo = count
}

/**
 * Lets a closed trace keep nothing of its spans. Its entries in the assembler's queues (the clock's
 * unsettled queue, the open order, the backlog heap) turn stale, not gone: the unsettled queue
 * lists a trace until its quiet period on the clock is over, though the watermark released it
 * long before in a backlog read. Its spans' batches, and through them whole fetch responses, would
 * stay alive that long (at 10 % sampling, 240 MiB of fetch responses kept by traces released and
 * scored seconds before).
 */
function letGo(trace: OpenTrace<unknown>): void {
  trace.held = NONE
  trace.idSet = undefined
}

/**
 * The held spans, decoded (in arrival order), with the held log records attached to their spans
 * as events (see `attachLogRecords`).
 */
function decodeHeld(trace: HeldSpans): Span[] {
  const held = trace.held
  const spans = new Array<Span>(countOf(held))
  let n = 0
  let logs: LogRecord[] | undefined
  for (let k = 0; k < spans.length; k++) {
    const source = sourceOf(held, k)
    if (source.logRecord === undefined) spans[n++] = source.span(indexOf(held, k))
    else {
      logs ??= []
      logs.push(source.logRecord(indexOf(held, k)))
    }
  }
  if (logs === undefined) return spans
  spans.length = n
  return attachLogRecords(spans, logs).spans
}

interface OpenTrace<R> extends HeldSpans {
  traceId: string
  /** True while buffered; false once released or dropped (its entries in the queues are then stale). */
  isOpen: boolean
  /** Span ids as a Set, built only once the trace outgrows {@link SCAN_DUPLICATES_UP_TO} spans. */
  idSet: Set<string> | undefined
  /** Payload bytes of its spans, whole (a fractional number would be boxed). */
  bytes: number
  /** When its first and its latest span arrived, on `clock()` (relative ms). */
  firstSeenMs: number
  lastSpanMs: number
  /**
   * Latest record time of the trace's spans, relative to the assembler's `eventBaseMs` (small
   * integers stay unboxed in V8); {@link NO_EVENT_TIME} when its records carried none.
   */
  lastEventMs: number
  agentSpanIds: string[]
  unendedAgents: number
  hasRoot: boolean
  hasGenAi: boolean
  refs: R[]
  supersedes: boolean
  /** Agent spans already scored by an earlier release (not scored again unless superseding). */
  scoredAgentSpanIds?: readonly string[]
  /** True when reopened from late spans alone (the earlier spans were not kept). */
  partial: boolean
  /** True while the trace waits in the unsettled queue for its quiet period. */
  inUnsettled: boolean
  /** Held spans whose batches were made to own their bytes (see {@link ownBytes}). */
  ownedUpTo: number
  /** The key of its latest entry in `byBacklog` (NO_EVENT_TIME: none): a record's runs of it queue it once. */
  backlogKey: number
  /**
   * True while the sampling door rejected the trace by rate and no span of it was claimed: its
   * spans are held as they came, never asked about their roles, and it is released unscored.
   */
  probation: boolean
}

interface ReleasedTrace {
  traceId: string
  /** Always false: tells a remembered trace from an open one in `traces`. */
  readonly isOpen: false
  releasedMs: number
  /** What released it: a span arriving later is counted by it. */
  reason: ReleaseReason
  /** Agent spans scored by the releases so far (usually one). */
  agentSpanIds: readonly string[]
  /** Kept only with `rescoreLateSpans`, so a re-release holds the whole trace. */
  spans?: HeldSpans | undefined
  bytes: number
}

/** The ids of the held spans, as a Set. */
function heldIds(held: HeldSpans['held']): Set<string> {
  const ids = new Set<string>()
  for (let k = 0; k < held.length; k += 2) {
    const source = held[k] as SpanBatch
    if (source.logRecord === undefined) ids.add(source.spanId(held[k + 1] as number))
  }
  return ids
}

/** A trace's `lastEventMs` when none of its records had a time: the watermark never holds it. */
const NO_EVENT_TIME = -(2 ** 30)
/** Relative times stay within ±this (small integers); beyond, the base moves (`rebaseEvents`, `rebaseClock`). */
const TIME_RANGE = 2 ** 29

/** A relative time after its base moved forward by `shift`, kept within the range. */
const shifted = (time: number, shift: number): number =>
  Math.min(TIME_RANGE, Math.max(-TIME_RANGE, time - shift)) | 0

const isEnded = (span: Span): boolean => span.endTimeUnixNano !== '0' && span.endTimeUnixNano !== ''

/**
 * Buffers spans per trace id and releases traces when their agent runs are complete: the agent
 * span arrived and ended and the trace has been quiet for `settleMs`. Traces without an agent span
 * are released once their root span arrived and settled, and every trace at `maxTraceAgeMs`.
 * When partitions advance unevenly (a backlog), settling also follows the data: with a watermark,
 * a trace is ready only once every partition read (idle ones excepted) has advanced past its
 * latest record time by `settleMs`, so spans still unread on a lagging partition are waited for.
 * Pure and synchronous: time and the watermark come from injected functions, nothing happens
 * between calls.
 */
export class TraceAssembler<R> {
  private readonly isAgentRunSpan: (span: Span) => boolean
  private readonly isGenAiSpan: (span: Span) => boolean
  private readonly now: () => number
  private readonly watermark: () => number | undefined
  private readonly backlogWatermark: () => number | undefined
  private readonly readThrough: () => number | undefined
  private readonly settleMs: number
  private readonly maxTraceAgeMs: number
  private readonly maxBufferedSpans: number
  private readonly maxBufferedBytes: number
  private readonly rescoreLateSpans: boolean
  private readonly lateWindowMs: number
  private readonly maxReleasedTraces: number

  /**
   * Every trace the assembler knows, by id: open (buffered) ones and released ones remembered to
   * recognise late spans. One Map for both: a trace's release replaces its entry's value rather
   * than deleting it from one Map and inserting it into another (on traffic of many small traces
   * never scored, these Map operations were most of the assembler's own time).
   */
  private readonly traces = new Map<string, OpenTrace<R> | ReleasedTrace>()
  /**
   * Open traces in order of first arrival (oldest first); entries of traces no longer open are
   * stale and skipped (and dropped when they outnumber the open ones).
   */
  private openOrder: (OpenTrace<R> | undefined)[] = []
  private openHead = 0
  private openCount = 0
  /** Released traces remembered in `traces`. */
  private releasedSize = 0
  /**
   * Open traces not yet settled, in order of their last span's arrival: entry i is a trace and the
   * time of a span of it. An entry is stale once the trace got a later span (it has a newer entry)
   * or left the queue; stale entries are skipped. A queue rather than a Map reordered on every
   * touch: no Map delete and insert per trace and record, and no walk over a Map's deleted holes.
   */
  private unsettledTraces: (OpenTrace<R> | undefined)[] = []
  private unsettledMs: number[] = []
  private unsettledHead = 0
  /**
   * Traces that settled on the clock and look complete but wait for the watermark, by their
   * `lastEventMs` (lowest first). An entry is stale once its trace left (released, dropped), got
   * a later span (it is back in the unsettled queue) or a later record time; stale ones are skipped.
   */
  private awaitingWatermark = new KeyedMinHeap<OpenTrace<R>>()
  /**
   * Open traces read while the backlog watermark was defined, by their `lastEventMs` (lowest
   * first), for release by it (`releaseByBacklog`). Stale entries (trace left, or a later record
   * time) are skipped.
   */
  private byBacklog = new KeyedMinHeap<OpenTrace<R>>()
  /** Record times are kept relative to the first one seen (see `OpenTrace.lastEventMs`). */
  private eventBaseMs: number | undefined
  /** Clock times are kept relative to the first reading (see `clock`). */
  private clockBaseMs: number | undefined
  /**
   * Released traces in order of release (oldest first; entries no longer in `traces` are skipped),
   * so forgetting the oldest does not walk a Map from its start: a Map keeps the holes of deleted
   * entries until it is rehashed, and iterating it from the start after many deletions at the front
   * costs as many steps as holes.
   */
  private releasedOrder: (ReleasedTrace | undefined)[] = []
  private releasedHead = 0
  private readonly ready: ReadyTrace<R>[] = []
  /** Spans and bytes of the open traces. */
  private bufferedSpans = 0
  private bufferedBytes = 0
  /** Spans and bytes kept of released traces for a re-score (`rescoreLateSpans`). */
  private retainedSpans = 0
  private retainedBytes = 0
  /** Totals since the start, for `stats`. */
  private releasedCount = 0
  private lateSpans = 0
  private readonly lateByRelease: Record<ReleaseReason, number> = { settled: 0, age: 0, cap: 0, flush: 0 }
  private duplicateSpans = 0
  private rereleased = 0
  private passedByTraces = 0
  private passedBySpans = 0

  constructor(options: TraceAssemblerOptions) {
    this.isAgentRunSpan = options.isAgentRunSpan
    this.isGenAiSpan = options.isGenAiSpan ?? options.isAgentRunSpan
    this.now = options.now ?? Date.now
    this.watermark = options.watermark ?? (() => undefined)
    this.backlogWatermark = options.backlogWatermark ?? (() => undefined)
    this.readThrough = options.readThrough ?? (() => undefined)
    const defaults = configDefaults.assembly
    this.settleMs = options.settleMs ?? defaults.settleMs
    this.maxTraceAgeMs = options.maxTraceAgeMs ?? defaults.maxTraceAgeMs
    this.maxBufferedBytes = options.maxBufferedBytes ?? defaults.maxBufferedBytes
    this.maxBufferedSpans = options.maxBufferedSpans ?? spanCapFor(this.maxBufferedBytes)
    this.rescoreLateSpans = options.rescoreLateSpans ?? defaults.rescoreLateSpans
    this.lateWindowMs = options.lateWindowMs ?? this.maxTraceAgeMs
    this.maxReleasedTraces = options.maxReleasedTraces ?? 100_000
  }

  /**
   * Buffers the spans of one record. `payloadBytes` (the record's value size) is apportioned over
   * its spans for the byte cap; without it each span's size is estimated. `eventMs` is the
   * record's time (its Kafka timestamp), which the watermark is compared with.
   */
  add(spans: readonly Span[], ref: R, payloadBytes?: number, eventMs?: number): AddResult {
    return this.addBatch(spanArrayBatch(spans), ref, payloadBytes, eventMs)
  }

  /**
   * Buffers the spans of one record given as a batch (a scanned protobuf record: its spans are
   * decoded only when a trace of them is released with GenAI activity and its spans are read).
   */
  addBatch(batch: SpanBatch, ref: R, payloadBytes?: number, eventMs?: number): AddResult {
    const now = this.clock()
    const event = this.relativeEventMs(eventMs)
    const count = batch.length
    // Whole bytes (rounded up): a fractional count would make every trace's `bytes` a boxed double.
    const perSpanBytes = payloadBytes !== undefined && count > 0 ? Math.ceil(payloadBytes / count) | 0 : -1
    let traces = 0
    let late = 0
    // Late spans are gathered per trace first: a late agent span may reopen the trace.
    let lateByTrace: Map<string, number[]> | undefined
    // Spans of one trace come together in a record: look a trace up once per run of its spans.
    let lastTraceId: string | undefined
    let trace: OpenTrace<R> | undefined
    // In a backlog, each run of a trace's spans queues it for release by the backlog watermark.
    const backlog = event !== NO_EVENT_TIME && this.backlogWatermark() !== undefined
    for (let i = 0; i < count; i++) {
      const traceId = batch.traceId(i)
      if (traceId !== lastTraceId || trace === undefined) {
        lastTraceId = traceId
        const known = this.traces.get(traceId)
        if (known === undefined) {
          trace = this.openTrace(traceId, now)
          if (batch.rejected?.(i) === true) trace.probation = true
        } else if (known.isOpen) trace = known as OpenTrace<R>
        else {
          trace = undefined
          late++
          this.lateByRelease[(known as ReleasedTrace).reason]++
          lateByTrace ??= new Map()
          const list = lateByTrace.get(traceId)
          if (list === undefined) lateByTrace.set(traceId, [i])
          else list.push(i)
          continue
        }
        if (backlog) this.queueByBacklog(trace, event)
      }
      if (this.append(trace, batch, i, perSpanBytes, now, ref)) traces++
      if (event > trace.lastEventMs) trace.lastEventMs = event
    }
    if (lateByTrace !== undefined) {
      this.lateSpans += late
      for (const [traceId, indexes] of lateByTrace) {
        if (this.reopen(traceId, batch, indexes, perSpanBytes, now, ref, event)) traces++
      }
    }
    this.enforceCaps()
    return { traces, lateSpans: late }
  }

  /** Releases every trace that is ready at the clock's current time (and those the caps finalized). */
  takeReady(): ReadyTrace<R>[] {
    const now = this.clock()
    const quietUpTo = this.quietUpTo(now)
    const watermark = this.watermark()
    // The latest record time a trace may have to be ready by the watermark (relative, as stored).
    const eventLimit =
      watermark === undefined
        ? Number.POSITIVE_INFINITY
        : watermark - (this.eventBaseMs ?? watermark) - this.settleMs
    const traces = this.unsettledTraces
    const times = this.unsettledMs
    while (this.unsettledHead < traces.length) {
      const i = this.unsettledHead
      const trace = traces[i]!
      const current = trace.inUnsettled && trace.lastSpanMs === times[i]
      if (current && quietUpTo - trace.lastSpanMs < this.settleMs) break
      traces[i] = undefined
      this.unsettledHead++
      if (!current) continue
      trace.inUnsettled = false
      if (!this.looksComplete(trace)) continue
      if (trace.lastEventMs <= eventLimit) this.release(trace, 'settled', now)
      else this.awaitingWatermark.push(trace, trace.lastEventMs)
    }
    this.releaseByWatermark(eventLimit, now)
    this.releaseByBacklog(quietUpTo, now)
    // Compact the queue once its consumed head outweighs what is left.
    if (this.unsettledHead > 1024 && this.unsettledHead * 2 > traces.length) {
      this.unsettledTraces = traces.slice(this.unsettledHead)
      this.unsettledMs = times.slice(this.unsettledHead)
      this.unsettledHead = 0
    }
    for (let trace = this.oldestOpen(); trace !== undefined; trace = this.oldestOpen()) {
      if (now - trace.firstSeenMs < this.maxTraceAgeMs) break
      this.release(trace, 'age', now)
    }
    // A trace open past its quiet period may stay for minutes: let it keep only its records' bytes,
    // not the consumer buffers (whole fetch responses) around them.
    const order = this.openOrder
    for (let i = this.openHead; i < order.length; i++) {
      const trace = order[i]!
      if (!trace.isOpen) continue
      if (now - trace.firstSeenMs < this.settleMs) break
      ownBytes(trace)
    }
    this.compactOpenOrder()
    this.forgetReleased(now)
    return this.ready.splice(0, this.ready.length)
  }

  /**
   * The injected clock as kept in the traces (`firstSeenMs`, `lastSpanMs`, `releasedMs`): ms after
   * `clockBaseMs`, a small integer. An epoch-ms number in a field is a separate heap object per
   * trace (16 B each, two per trace: 3% of a buffered span). Moves the base every ~6 days.
   */
  private clock(): number {
    const now = this.now()
    this.clockBaseMs ??= now
    const relative = now - this.clockBaseMs
    if (relative >= TIME_RANGE || relative <= -TIME_RANGE) {
      this.rebaseClock(now)
      return 0
    }
    return Math.floor(relative) | 0
  }

  /** Where the quiet period of traces ends (on `clock()`): `now`, or the read-through time when earlier. */
  private quietUpTo(now: number): number {
    const through = this.readThrough()
    if (through === undefined || this.clockBaseMs === undefined) return now
    return Math.min(now, through - this.clockBaseMs)
  }

  /** Moves `clockBaseMs` to `baseMs`, shifting every time read from the clock that is kept. */
  private rebaseClock(baseMs: number): void {
    const shift = baseMs - this.clockBaseMs!
    this.clockBaseMs = baseMs
    for (const trace of this.openTraces()) {
      trace.firstSeenMs = shifted(trace.firstSeenMs, shift)
      trace.lastSpanMs = shifted(trace.lastSpanMs, shift)
    }
    const times = this.unsettledMs
    for (let i = this.unsettledHead; i < times.length; i++) times[i] = shifted(times[i]!, shift)
    for (let i = this.releasedHead; i < this.releasedOrder.length; i++) {
      const released = this.releasedOrder[i]
      if (released !== undefined) released.releasedMs = shifted(released.releasedMs, shift)
    }
  }

  /** Releases the traces waiting for the watermark whose latest record time is at most `eventLimit`. */
  private releaseByWatermark(eventLimit: number, now: number): void {
    const waiting = this.awaitingWatermark
    for (let key = waiting.peekKey(); key !== undefined; key = waiting.peekKey()) {
      const trace = waiting.peek()!
      const current = trace.isOpen && !trace.inUnsettled && trace.lastEventMs === key
      if (current && key > eventLimit) break
      waiting.pop()
      if (current) this.release(trace, 'settled', now)
    }
    // Drop stale entries once they outnumber the open traces.
    if (waiting.size > 1024 && waiting.size > 2 * this.openCount)
      waiting.retain((trace, key) => trace.isOpen && !trace.inUnsettled && trace.lastEventMs === key)
  }

  /** Queues a trace for release by the backlog watermark at its latest record time, once per time. */
  private queueByBacklog(trace: OpenTrace<R>, event: number): void {
    const key = Math.max(trace.lastEventMs, event)
    if (trace.backlogKey === key) return
    trace.backlogKey = key
    this.byBacklog.push(trace, key)
  }

  /**
   * Releases the traces the backlog watermark passed by `settleMs` that look complete and were
   * last touched before the read-through time (see `backlogWatermark`), without their quiet
   * period on the clock.
   */
  private releaseByBacklog(quietUpTo: number, now: number): void {
    const waiting = this.byBacklog
    const backlog = this.backlogWatermark()
    if (backlog === undefined || this.readThrough() === undefined) {
      if (waiting.size > 0 && backlog === undefined) waiting.clear()
      return
    }
    const limit = backlog - (this.eventBaseMs ?? backlog) - this.settleMs
    for (let key = waiting.peekKey(); key !== undefined && key <= limit; key = waiting.peekKey()) {
      const trace = waiting.peek()!
      const current = trace.isOpen && trace.lastEventMs === key
      // No fetch started since its last span arrived: spans of it may wait unread. Next tick.
      if (current && trace.lastSpanMs >= quietUpTo) break
      waiting.pop()
      if (trace.backlogKey === key) trace.backlogKey = NO_EVENT_TIME // a later record queues it again
      if (current && trace.inUnsettled && this.looksComplete(trace)) this.release(trace, 'settled', now)
    }
    if (waiting.size > 1024 && waiting.size > 2 * this.openCount)
      waiting.retain((trace, key) => trace.isOpen && trace.lastEventMs === key)
  }

  /**
   * A record time as kept in `OpenTrace.lastEventMs`: ms after `eventBaseMs`, as a small integer
   * (`| 0`), which V8 stores in the trace itself (a fractional or large number is a separate heap
   * object per trace). Moves the base when a time is more than about 6 days from it.
   */
  private relativeEventMs(eventMs: number | undefined): number {
    if (eventMs === undefined || !Number.isFinite(eventMs)) return NO_EVENT_TIME
    this.eventBaseMs ??= eventMs
    const relative = eventMs - this.eventBaseMs
    if (relative >= TIME_RANGE || relative <= -TIME_RANGE) {
      this.rebaseEvents(eventMs)
      return 0
    }
    return Math.ceil(relative) | 0
  }

  /** Moves `eventBaseMs` to `baseMs`, shifting the open traces' record times and the queue's keys. */
  private rebaseEvents(baseMs: number): void {
    const shift = baseMs - this.eventBaseMs!
    this.eventBaseMs = baseMs
    for (const trace of this.openTraces())
      if (trace.lastEventMs !== NO_EVENT_TIME) trace.lastEventMs = shifted(trace.lastEventMs, shift)
    const waiting = this.awaitingWatermark
    this.awaitingWatermark = new KeyedMinHeap()
    for (let trace = waiting.pop(); trace !== undefined; trace = waiting.pop())
      if (trace.isOpen) this.awaitingWatermark.push(trace, trace.lastEventMs)
  }

  /** Releases every open trace now, whatever its state (end of a file, a final drain). */
  flush(): ReadyTrace<R>[] {
    const now = this.clock()
    for (const trace of this.openTraces()) this.release(trace, 'flush', now)
    return this.ready.splice(0, this.ready.length)
  }

  /**
   * Drops buffered traces whose every record matches (e.g. records of revoked partitions, which
   * the next owner reads again) and returns how many were dropped.
   */
  discard(recordMatches: (ref: R) => boolean): number {
    let dropped = 0
    for (const trace of this.openTraces()) {
      if (trace.refs.length > 0 && trace.refs.every(recordMatches)) {
        this.remove(trace)
        dropped++
      }
    }
    for (let i = this.ready.length - 1; i >= 0; i--) {
      const trace = this.ready[i]!
      if (trace.recordRefs.length > 0 && trace.recordRefs.every(recordMatches)) this.ready.splice(i, 1)
    }
    return dropped
  }

  /**
   * Forgets that these traces were released, so their spans read again count as new rather than
   * late: for released traces that were dropped before they were scored (their partition was
   * revoked), which must be scored when their records come back.
   */
  forget(traceIds: Iterable<string>): void {
    for (const traceId of traceIds) {
      const released = this.traces.get(traceId)
      if (released !== undefined && !released.isOpen) this.dropReleased(traceId, released as ReleasedTrace)
    }
  }

  /** Forgets everything: open traces, pending releases and released ids (a consumer-group rejoin). */
  clear(): void {
    this.traces.clear()
    this.openOrder = []
    this.openHead = 0
    this.openCount = 0
    this.releasedSize = 0
    this.unsettledTraces = []
    this.unsettledMs = []
    this.unsettledHead = 0
    this.awaitingWatermark.clear()
    this.releasedOrder = []
    this.releasedHead = 0
    this.ready.length = 0
    this.bufferedSpans = 0
    this.bufferedBytes = 0
    this.retainedSpans = 0
    this.retainedBytes = 0
  }

  /** Totals for metrics and backpressure. */
  stats(): AssemblerStats {
    return {
      openTraces: this.openCount,
      bufferedSpans: this.bufferedSpans + this.retainedSpans,
      bufferedBytes: this.bufferedBytes + this.retainedBytes,
      releasedTraces: this.releasedCount,
      lateSpans: this.lateSpans,
      lateSpansByRelease: { ...this.lateByRelease },
      duplicateSpans: this.duplicateSpans,
      rereleasedTraces: this.rereleased,
      passedByTraces: this.passedByTraces,
      passedBySpans: this.passedBySpans,
    }
  }

  private openTrace(traceId: string, now: number): OpenTrace<R> {
    const trace: OpenTrace<R> = {
      traceId,
      isOpen: true,
      held: NONE,
      idSet: undefined,
      bytes: 0,
      firstSeenMs: now,
      lastSpanMs: now,
      lastEventMs: NO_EVENT_TIME,
      agentSpanIds: NONE,
      unendedAgents: 0,
      hasRoot: false,
      hasGenAi: false,
      refs: NONE,
      supersedes: false,
      partial: false,
      inUnsettled: false,
      ownedUpTo: 0,
      backlogKey: NO_EVENT_TIME,
      probation: false,
    }
    this.traces.set(traceId, trace)
    this.openOrder.push(trace)
    this.openCount++
    return trace
  }

  /** Adds span `i` of `batch` to an open trace; true when this is the first span of `ref` in the trace. */
  private append(
    trace: OpenTrace<R>,
    batch: SpanBatch,
    i: number,
    perSpanBytes: number,
    now: number,
    ref: R,
  ): boolean {
    const firstOfRecord = trace.refs[trace.refs.length - 1] !== ref
    // A one-element literal holds one slot where a push on `[]` reserves 16: most traces have one
    // record and one agent span, and every buffered trace pays for these arrays.
    if (firstOfRecord) {
      if (trace.refs.length === 0) trace.refs = [ref]
      else trace.refs.push(ref)
    }
    // Spans of a trace that showed no GenAI activity yet are not checked for duplicates (nor are
    // their ids made): most such traces are released unread. The check is made once for all of
    // them when the trace shows it (`dropDuplicates`), before anything reads its spans. A log
    // record is held beside the spans, never taken for a duplicate of its span.
    const isLog = batch.logRecord !== undefined
    const checked = trace.hasGenAi
    if (checked && !isLog) {
      const spanId = batch.spanId(i)
      if (this.hasSpan(trace, spanId)) {
        this.duplicateSpans++
        return firstOfRecord
      }
      if (trace.idSet !== undefined) trace.idSet.add(spanId)
      else if (countOf(trace.held) + 1 > SCAN_DUPLICATES_UP_TO) trace.idSet = heldIds(trace.held).add(spanId)
    }
    if (trace.held.length === 0) trace.held = [batch, i]
    else trace.held.push(batch, i)
    const bytes = perSpanBytes >= 0 ? perSpanBytes : batch.encodedBytes(i)
    trace.bytes += bytes
    this.bufferedBytes += bytes
    this.bufferedSpans++
    if (batch.isRoot(i)) trace.hasRoot = true
    if (!trace.probation) {
      this.noteRole(trace, batch, i)
      if (!checked && trace.hasGenAi) this.dropDuplicates(trace)
    } else if (batch.claimed?.(i) === true) this.claim(trace)
    // Queue the trace again at its new last arrival (its earlier entry turns stale); traces touched
    // at the same instant keep their entry.
    if (!trace.inUnsettled || trace.lastSpanMs !== now) {
      this.unsettledTraces.push(trace)
      this.unsettledMs.push(now)
      trace.inUnsettled = true
    }
    trace.lastSpanMs = now
    return firstOfRecord
  }

  /** Notes whether span `i` of `batch` is an agent-run span (and whether it is ended) or a GenAI span. */
  private noteRole(trace: OpenTrace<R>, batch: SpanBatch, i: number): void {
    const span = batch.candidate(i)
    if (span === undefined) return
    if (this.isAgentRunSpan(span)) {
      const spanId = batch.spanId(i)
      if (trace.agentSpanIds.length === 0) trace.agentSpanIds = [spanId]
      else trace.agentSpanIds.push(spanId)
      if (!isEnded(span)) trace.unendedAgents++
      trace.hasGenAi = true
    } else if (!trace.hasGenAi && (batch.mayHoldMessages?.(i) === true || this.isGenAiSpan(span)))
      trace.hasGenAi = true
  }

  /** A trace on probation was claimed by the door's rules: it comes in, its held spans' roles noted now. */
  private claim(trace: OpenTrace<R>): void {
    trace.probation = false
    this.dropDuplicates(trace)
    const held = trace.held
    for (let k = 0; k < held.length; k += 2) this.noteRole(trace, held[k] as SpanBatch, held[k + 1] as number)
  }

  /**
   * Drops the spans a trace holds twice, keeping the last copy (the one that showed GenAI activity,
   * when that was a copy), once the trace shows GenAI activity (see `append`): from then on each
   * span is checked as it comes.
   */
  private dropDuplicates(trace: OpenTrace<R>): void {
    const held = trace.held
    const ids = new Set<string>()
    let at = held.length
    for (let k = held.length - 2; k >= 0; k -= 2) {
      const batch = held[k] as SpanBatch
      const i = held[k + 1] as number
      if (batch.logRecord !== undefined) {
        // Log records are kept beside their span, never duplicates of it.
        held[--at] = i
        held[--at] = batch
        continue
      }
      const id = batch.spanId(i)
      if (ids.has(id)) {
        this.duplicateSpans++
        this.bufferedSpans--
        continue
      }
      ids.add(id)
      held[--at] = i
      held[--at] = batch
    }
    if (at > 0) {
      trace.held = held.slice(at)
      trace.ownedUpTo = 0 // positions moved; owning a batch twice is a no-op
    }
    if (ids.size > SCAN_DUPLICATES_UP_TO) trace.idSet = ids
  }

  /**
   * Late spans (`indexes` of `batch`) of a released trace. They reopen it when re-scoring is
   * configured (with the kept spans, superseding) or when they carry an agent run not scored yet;
   * otherwise they are only counted. Returns true when the record now holds the reopened trace.
   */
  private reopen(
    traceId: string,
    batch: SpanBatch,
    indexes: number[],
    perSpanBytes: number,
    now: number,
    ref: R,
    event: number,
  ): boolean {
    const released = this.traces.get(traceId) as ReleasedTrace
    // A trace the door rejected comes back only when a late span of it is claimed.
    const rejected = batch.rejected?.(indexes[0]!) === true
    if (rejected && !indexes.some((i) => batch.claimed?.(i) === true)) return false
    const newAgent = indexes.some((i) => {
      const span = batch.candidate(i)
      return span !== undefined && this.isAgentRunSpan(span) && !released.agentSpanIds.includes(span.spanId)
    })
    if (!this.rescoreLateSpans && !newAgent) return false
    this.dropReleased(traceId, released)
    const trace = this.openTrace(traceId, now)
    trace.supersedes = this.rescoreLateSpans
    if (!this.rescoreLateSpans) trace.scoredAgentSpanIds = released.agentSpanIds
    trace.partial = released.spans === undefined
    const kept = released.spans
    if (kept !== undefined) {
      const spans = spanArrayBatch(decodeHeld(kept))
      for (let k = 0; k < spans.length; k++) this.append(trace, spans, k, -1, now, ref)
    }
    released.spans = undefined // its slot in `releasedOrder` stays until forgotten: keep no spans there
    trace.refs = NONE
    for (const i of indexes) this.append(trace, batch, i, perSpanBytes, now, ref)
    trace.lastEventMs = event
    this.rereleased++
    return true
  }

  /** True when the trace already holds a span with this id. */
  private hasSpan(trace: OpenTrace<R>, spanId: string): boolean {
    if (trace.idSet !== undefined) return trace.idSet.has(spanId)
    const held = trace.held
    for (let k = 0; k < held.length; k += 2) {
      const source = held[k] as SpanBatch
      if (source.spanId(held[k + 1] as number) === spanId && source.logRecord === undefined) return true
    }
    return false
  }

  private looksComplete(trace: OpenTrace<R>): boolean {
    if (trace.agentSpanIds.length > 0) return trace.unendedAgents === 0
    return trace.hasRoot
  }

  private release(trace: OpenTrace<R>, reason: ReleaseReason, now: number): void {
    this.close(trace)
    if (trace.probation) {
      this.passedByTraces++
      this.passedBySpans += countOf(trace.held)
    }
    const scored = trace.scoredAgentSpanIds
    const agentSpanIds =
      scored === undefined ? trace.agentSpanIds : trace.agentSpanIds.filter((id) => !scored.includes(id))
    const incomplete = trace.partial || (reason !== 'settled' && !this.looksComplete(trace))
    this.ready.push(new ReleasedTraceView(trace, agentSpanIds, scored, incomplete, reason))
    this.releasedCount++
    const remembered: ReleasedTrace = {
      traceId: trace.traceId,
      isOpen: false,
      releasedMs: now,
      reason,
      agentSpanIds: scored === undefined ? trace.agentSpanIds : [...scored, ...agentSpanIds],
      bytes: 0,
    }
    // Spans are kept for a later re-score, except when the cap is what released the trace.
    if (this.rescoreLateSpans && reason !== 'cap') {
      ownBytes(trace)
      remembered.spans = { held: trace.held }
      remembered.bytes = trace.bytes
      this.retainedSpans += countOf(trace.held)
      this.retainedBytes += trace.bytes
    }
    this.traces.set(trace.traceId, remembered) // in place of the open trace: no delete and insert
    this.releasedSize++
    this.releasedOrder.push(remembered)
    if (this.releasedSize > this.maxReleasedTraces) this.forgetReleased(now)
    letGo(trace)
  }

  /** Drops an open trace (not released: its records are read again by whoever reads them next). */
  private remove(trace: OpenTrace<R>): void {
    this.traces.delete(trace.traceId)
    this.close(trace)
    letGo(trace)
  }

  /** Takes a trace out of the open ones (its entry in `traces` is the caller's to replace or delete). */
  private close(trace: OpenTrace<R>): void {
    trace.isOpen = false // its queue entries turn stale
    this.openCount--
    trace.inUnsettled = false
    this.bufferedSpans -= countOf(trace.held)
    this.bufferedBytes -= trace.bytes
  }

  private dropReleased(traceId: string, released: ReleasedTrace): void {
    this.traces.delete(traceId)
    this.releasedSize--
    if (released.spans !== undefined) {
      this.retainedSpans -= countOf(released.spans.held)
      this.retainedBytes -= released.bytes
    }
  }

  /** Forgets released traces past the late window or beyond the remembered count, oldest first. */
  private forgetReleased(now: number): void {
    const order = this.releasedOrder
    while (this.releasedHead < order.length) {
      const released = order[this.releasedHead]!
      // Superseded by a later release of the same trace (or already dropped): only its slot is left.
      if (this.traces.get(released.traceId) !== released) {
        order[this.releasedHead++] = undefined
        continue
      }
      const expired = now - released.releasedMs >= this.lateWindowMs
      if (!expired && this.releasedSize <= this.maxReleasedTraces) break
      order[this.releasedHead++] = undefined
      this.dropReleased(released.traceId, released)
    }
    // Compact the queue once its consumed head outweighs what is left.
    if (this.releasedHead > 1024 && this.releasedHead * 2 > order.length) {
      this.releasedOrder = order.slice(this.releasedHead)
      this.releasedHead = 0
    }
  }

  /** Keeps the buffer under its caps: kept spans of released traces go first, then the oldest open traces. */
  private enforceCaps(): void {
    const over = () =>
      this.bufferedSpans + this.retainedSpans > this.maxBufferedSpans ||
      this.bufferedBytes + this.retainedBytes > this.maxBufferedBytes
    if (!over()) return
    if (this.retainedSpans > 0) {
      for (let i = this.releasedHead; i < this.releasedOrder.length; i++) {
        if (!over()) return
        const released = this.releasedOrder[i]
        if (released === undefined || released.spans === undefined) continue
        this.retainedSpans -= countOf(released.spans.held)
        this.retainedBytes -= released.bytes
        released.spans = undefined
        released.bytes = 0
      }
    }
    const now = this.clock()
    for (let trace = this.oldestOpen(); trace !== undefined; trace = this.oldestOpen()) {
      if (!over()) break
      this.release(trace, 'cap', now)
    }
    this.compactOpenOrder()
  }

  /** The open trace that arrived first (stale entries before it are dropped from the queue). */
  private oldestOpen(): OpenTrace<R> | undefined {
    const order = this.openOrder
    while (this.openHead < order.length) {
      const trace = order[this.openHead]!
      if (trace.isOpen) return trace
      order[this.openHead++] = undefined
    }
    return undefined
  }

  /** The open traces, oldest first (a copy: releasing them while iterating is safe). */
  private openTraces(): OpenTrace<R>[] {
    const out: OpenTrace<R>[] = []
    const order = this.openOrder
    for (let i = this.openHead; i < order.length; i++) if (order[i]!.isOpen) out.push(order[i]!)
    return out
  }

  /** Drops the queue's stale entries once they outnumber the open traces (or its consumed head is long). */
  private compactOpenOrder(): void {
    const order = this.openOrder
    const entries = order.length - this.openHead
    if (entries > 1024 && entries > 2 * this.openCount) {
      this.openOrder = this.openTraces()
      this.openHead = 0
    } else if (this.openHead > 1024 && this.openHead * 2 > order.length) {
      this.openOrder = order.slice(this.openHead)
      this.openHead = 0
    }
  }
}
