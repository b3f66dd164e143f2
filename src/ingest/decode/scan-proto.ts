import type { Attributes, InstrumentationScope, Span } from '../../model/span.ts'
import type { DoorFilter } from '../sampling-door.ts'
import {
  REQUEST_RESOURCE_SPANS,
  RS_SCOPE_SPANS,
  readResourceField,
  readScopeField,
  SS_SPANS,
} from './decode-proto.ts'
import { checkKeyValue, MAY_HOLD_MESSAGES, ROLE_KEY } from './proto-values.ts'
import { ProtobufReader } from './protobuf-reader.ts'
import {
  EVENT_ATTRIBUTES,
  EVENT_NAME,
  EVENT_TIME,
  LINK_ATTRIBUTES,
  LINK_SPAN_ID,
  LINK_TRACE_ID,
  LINK_TRACE_STATE,
  readId,
  readSpan,
  SPAN_ATTRIBUTES,
  SPAN_END,
  SPAN_EVENTS,
  SPAN_ID_BYTES,
  SPAN_KIND,
  SPAN_LINKS,
  SPAN_NAME,
  SPAN_PARENT_SPAN_ID,
  SPAN_SPAN_ID,
  SPAN_START,
  SPAN_STATUS,
  SPAN_TRACE_ID,
  SPAN_TRACE_STATE,
  STATUS_CODE,
  STATUS_MESSAGE,
  TRACE_ID_BYTES,
} from './read-span.ts'
import { readRoleView } from './role-view.ts'

const ROOT = 1
const CANDIDATE = 2
/** The sampling door rejected the span's trace id; kept only because the door's claims may take it. */
const REJECTED = 4
/** The span may make its trace one the door's claims (`alwaysScore`) take (see `DoorFilter`). */
const CLAIM = 8
/** The span has a string attribute that may hold messages: a model call of no known vocabulary may. */
const MESSAGES = 16
/**
 * Fields kept per span in {@link ScannedSpans}: start and end of its `Span` message, flags, group,
 * and where its span id's 8 bytes start (its hex string is made only when asked for).
 */
const STRIDE = 5

const encoder = new TextEncoder()
/** Span names of the Vercel AI SDK (`ai.generateText`...), whose role may come from the name alone. */
const AI_NAME = encoder.encode('ai.')
/** Span names of Quarkus LangChain4j (`langchain4j.aiservices.*`: a run span without attributes). */
const LANGCHAIN4J_NAME = encoder.encode('langchain4j.')
/** Events of the older GenAI conventions (`gen_ai.user.message`, `gen_ai.choice`), which make a model span. */
const GEN_AI_EVENT = encoder.encode('gen_ai.')
/** The event OpenTelemetry records an exception as (some conventions' only sign of a failure). */
const EXCEPTION_EVENT = encoder.encode('exception')
/** `scanEvent`'s answer: the event's name starts with `gen_ai.`, or is `exception`. */
const GEN_AI = 1
const EXCEPTION = 2
/** Status code ERROR (`Status.code`). */
const STATUS_ERROR = 2

/**
 * The spans of one protobuf record, scanned but not decoded: per span its trace and span ids,
 * whether it is a root and whether it may matter to agent runs (a candidate), over the record's
 * bytes, from which any span is decoded on demand, exactly as `decodeOtlpTraces` decodes it.
 * Spans of HTTP or database traces are never decoded when nobody asks for them.
 *
 * The bytes are the consumer's (not copied: a copy per record costs more than the scan, mostly in
 * garbage collection of the copies), so they must not change while the spans are held; a Kafka
 * client's record values are slices of its fetch response, which it never writes again, and which
 * they keep alive: {@link own} copies them out once the record is held for long.
 */
export class ScannedSpans {
  /** The record's bytes: the payload given to {@link scanOtlpProto}, or a copy once {@link own}ed. */
  bytes: Uint8Array
  private owned = false
  length = 0
  /** Spans of the record the sampling door passed by: read up to their trace id (and parent), no further. */
  passedBySpans = 0
  /** Of them, root spans: the traces passed by (a trace has one root). */
  passedByTraces = 0
  private traceIds: readonly string[] = NONE
  /** Span ids made so far (see {@link spanId}); none until one is asked for. */
  private spanIds: string[] | undefined
  private info: readonly number[] = NONE
  /** @internal Per group (a `ScopeSpans`): its resource and scope, known once the scan passed it. */
  readonly resources: Attributes[] = []
  /** @internal */
  readonly scopes: InstrumentationScope[] = []
  private reader: ProtobufReader | undefined

  constructor(bytes: Uint8Array) {
    this.bytes = bytes
  }

  traceId(i: number): string {
    return this.traceIds[i]!
  }

  /**
   * The id of span `i`, made from its bytes when first asked for: the assembler asks only for the
   * spans of traces that show GenAI activity (and of duplicates checks there), so most spans of
   * HTTP or database traces never get one.
   */
  spanId(i: number): string {
    this.spanIds ??= new Array<string>(this.length)
    let id = this.spanIds[i]
    if (id === undefined) {
      const at = this.info[i * STRIDE + 4]!
      id = this.readerAt(at).hex(at + SPAN_ID_BYTES)
      this.spanIds[i] = id
    }
    return id
  }

  /** True when the span has no parent (or an all-zero parent id). */
  isRoot(i: number): boolean {
    return (this.info[i * STRIDE + 2]! & ROOT) !== 0
  }

  /** True when the sampling door rejected the trace of span `i` (it is kept for the door's claims). */
  rejected(i: number): boolean {
    return (this.info[i * STRIDE + 2]! & REJECTED) !== 0
  }

  /** True when span `i` may make its trace one the door's claims take (status ERROR, an agent name...). */
  claimed(i: number): boolean {
    return (this.info[i * STRIDE + 2]! & CLAIM) !== 0
  }

  /**
   * True when span `i` has a string attribute that may hold a message list or a provider's
   * request/response body (`mayHoldMessagesAt`): a model call the generic reader may read by what
   * its values hold, whatever its keys, so its trace shows GenAI activity though no role key says
   * so. Such a span is a candidate too; its role view holds no such value.
   */
  mayHoldMessages(i: number): boolean {
    return (this.info[i * STRIDE + 2]! & MESSAGES) !== 0
  }

  /**
   * The role view of span `i` (`readRoleView`: what transform's role predicates and the assembler
   * read of a candidate, exactly as decoded) when it may be an agent, model or tool span in some
   * convention: it has a role attribute key (`role-attributes.ts`), a `gen_ai.*` event, a name
   * starting with `ai.`, or a value that may hold messages ({@link mayHoldMessages}). Undefined for any other span, which no convention's role reads as GenAI.
   * A new object on every call; nothing is kept.
   */
  candidate(i: number): Span | undefined {
    const at = i * STRIDE
    if ((this.info[at + 2]! & CANDIDATE) === 0) return undefined
    const group = this.info[at + 3]!
    // The id first: making it moves the shared reader.
    const ids = { traceId: this.traceIds[i]!, spanId: this.spanId(i) }
    const r = this.readerAt(this.info[at]!)
    return readRoleView(r, this.info[at + 1]!, ids, this.resources[group]!, this.scopes[group]!)
  }

  /** Span `i` decoded as `decodeOtlpTraces` decodes it, but that a large span's views read {@link bytes} in place. */
  span(i: number): Span {
    const at = i * STRIDE
    const group = this.info[at + 3]!
    const r = this.readerAt(this.info[at]!)
    return readSpan(r, this.info[at + 1]!, this.resources[group]!, this.scopes[group]!, true)
  }

  private readerAt(pos: number): ProtobufReader {
    this.reader ??= new ProtobufReader(this.bytes)
    this.reader.pos = pos
    return this.reader
  }

  /**
   * Copies the bytes out of the consumer's buffer (once), so that holding the spans holds only
   * them: the record's spans only, when they are a small part of it (spans the sampling door
   * passed by are no part of the batch), else the whole record. Each copy is an allocation
   * outside the V8 heap that brings the next full garbage collection nearer, the main cost of a
   * backlog read at a low sampling rate when every record was copied whole.
   */
  own(): void {
    if (this.owned) return
    this.owned = true
    this.reader = undefined
    const info = this.info
    let held = 0
    for (let at = 0; at < this.length * STRIDE; at += STRIDE) held += info[at + 1]! - info[at]!
    if (held * 2 > this.bytes.length) {
      this.bytes = Uint8Array.prototype.slice.call(this.bytes)
      return
    }
    // The spans' `Span` messages one after another; their offsets moved to where they now are.
    const copy = new Uint8Array(held)
    const moved = info.slice()
    let to = 0
    for (let at = 0; at < moved.length; at += STRIDE) {
      const start = info[at]!
      const end = info[at + 1]!
      copy.set(this.bytes.subarray(start, end), to)
      moved[at] = to
      moved[at + 1] = to + end - start
      moved[at + 4] = to + info[at + 4]! - start
      to += end - start
    }
    this.bytes = copy
    this.info = moved
  }

  /** The size of span `i`'s encoded `Span` message. */
  encodedBytes(i: number): number {
    return this.info[i * STRIDE + 1]! - this.info[i * STRIDE]!
  }

  /** @internal Takes the spans gathered in the scratch arrays, as arrays of their exact size. */
  takeSpans(count: number): void {
    this.length = count
    if (count === 0) return
    this.traceIds = scratchTraceIds.slice(0, count)
    this.info = scratchInfo.slice(0, count * STRIDE)
  }
}

/** Shared by batches without spans: nothing is ever added to it. */
const NONE: readonly never[] = Object.freeze([])

/**
 * The spans of the record being scanned, gathered here and copied once into arrays of their exact
 * size at the end (`takeSpans`): growing a batch's own arrays span by span reallocated each
 * several times per record. The scan is synchronous, so one set serves every record.
 */
let scratchTraceIds: string[] = []
let scratchInfo: number[] = []
let scratchCount = 0
/** The door of the record being scanned (the scan is synchronous), and the batch it counts into. */
let scanDoor: DoorFilter | undefined
let scanOut: ScannedSpans | undefined

/** Drops the scratch arrays after a record with unusually many spans, so they do not stay that large. */
function resetScratch(): void {
  if (scratchTraceIds.length <= 4096) return
  scratchTraceIds = []
  scratchInfo = []
}

/**
 * Scans a protobuf `ExportTraceServiceRequest`: checks all of it as `decodeOtlpTraces` would
 * (what it rejects, this rejects, with an {@link OtlpDecodeError}), reads each span's ids and
 * role markers and decodes nothing else but resources and scopes. The error messages may be less
 * precise than the decoder's: decode a rejected payload to report it.
 *
 * With a sampling `door`, a span whose trace the door rejects is passed by: read up to its trace
 * id (and its parent id, to count traces by their roots) and not kept, nor checked further (a
 * malformed part of it goes unnoticed; nothing would read it). With the door's `claims`, such a
 * span is scanned and kept, flagged rejected, and flagged when it may be claimed.
 */
export function scanOtlpProto(payload: Uint8Array, door?: DoorFilter): ScannedSpans {
  const r = new ProtobufReader(payload)
  const out = new ScannedSpans(payload)
  const limit = payload.length
  scratchCount = 0
  scanDoor = door
  scanOut = out
  try {
    while (r.pos < limit) {
      const tag = r.tag(limit)
      if (tag === REQUEST_RESOURCE_SPANS) scanResourceSpans(r, r.lengthEnd(limit), out)
      else r.skip(tag, limit)
    }
    out.takeSpans(scratchCount)
  } finally {
    resetScratch()
    scanDoor = undefined
    scanOut = undefined
  }
  return out
}

/**
 * Scans a `ResourceSpans`. Its resource may come anywhere on the wire (after the spans, or
 * repeated and merged): the groups of its scopes get it once the whole message was passed, as
 * the decoder's `findResource` reads it, without a second walk over the message.
 */
function scanResourceSpans(r: ProtobufReader, end: number, out: ScannedSpans): void {
  const firstGroup = out.resources.length
  const resource = readResourceField(r, end, (tag) => {
    if (tag === RS_SCOPE_SPANS) scanScopeSpans(r, r.lengthEnd(end), out)
    else r.skip(tag, end)
  })
  for (let g = firstGroup; g < out.resources.length; g++) out.resources[g] = resource
}

/**
 * What the configured producer profiles (`src/transform/profiles/`) may own beyond role keys,
 * whose spans are candidates too: every span of these scopes, spans whose name passes `name`, or
 * every span. Set at start-up by `useProfiles`; undefined without profiles.
 */
export interface ProfileCandidacy {
  scopes: ReadonlySet<string>
  name?: (name: string) => boolean
  every: boolean
}

let profileCandidacy: ProfileCandidacy | undefined

/** Sets what producer profiles may own (see {@link ProfileCandidacy}). */
export function setProfileCandidacy(candidacy: ProfileCandidacy | undefined): void {
  profileCandidacy = candidacy
}

/** Scans a `ScopeSpans`; its scope (anywhere on the wire, repeats merged) is set once the message was passed. */
function scanScopeSpans(r: ProtobufReader, end: number, out: ScannedSpans): void {
  const group = out.resources.length
  out.resources.push(NO_RESOURCE)
  out.scopes.push(NO_SCOPE)
  const first = scratchCount
  out.scopes[group] = readScopeField(r, end, (tag) => {
    if (tag === SS_SPANS) scanSpan(r, r.lengthEnd(end), group)
    else r.skip(tag, end)
  })
  if (profileCandidacy?.scopes.has(out.scopes[group]!.name))
    for (let n = first; n < scratchCount; n++) scratchInfo[n * STRIDE + 2]! |= CANDIDATE
}

/** Adds a span to the scratch arrays; returns its index. */
function addScanned(
  traceId: string,
  spanIdAt: number,
  start: number,
  end: number,
  flags: number,
  group: number,
) {
  const n = scratchCount++
  scratchTraceIds[n] = traceId
  const at = n * STRIDE
  scratchInfo[at] = start
  scratchInfo[at + 1] = end
  scratchInfo[at + 2] = flags
  scratchInfo[at + 3] = group
  scratchInfo[at + 4] = spanIdAt
  return n
}

const NO_RESOURCE: Attributes = Object.freeze({}) as Attributes
const NO_SCOPE: InstrumentationScope = Object.freeze({ name: '' })

/** Scans one `Span` message (`r.pos..end`), checking what `readSpan` checks. */
function scanSpan(r: ProtobufReader, end: number, group: number): void {
  const start = r.pos
  let traceId = ''
  let spanIdAt = -1
  let root = true
  let parentSeen = false
  let aiName = false
  let candidate = false
  let rejected = false
  let claim = false
  let messages = false
  while (r.pos < end) {
    const tag = r.tag(end)
    // The ids as the decoder reads them (every span has both), then the fields checked or marked.
    if (tag === SPAN_TRACE_ID) {
      const idAt = r.pos
      // A trace id rejected before is passed by on its bytes (no hex string, no `keep`).
      if (scanDoor?.claims === undefined && scanDoor?.rejectedBefore !== undefined) {
        const idEnd = r.lengthEnd(end)
        if (idEnd - r.pos === TRACE_ID_BYTES && scanDoor.rejectedBefore(r.buf, r.pos)) {
          r.pos = idEnd
          passBy(r, end, parentSeen ? root : undefined)
          return
        }
        r.pos = idAt
      }
      traceId = readId(r, end, TRACE_ID_BYTES, 'trace_id')
      if (scanDoor !== undefined && !scanDoor.keep(traceId)) {
        // Producers write the trace id first: a trace nothing can score costs no more than this.
        if (scanDoor.claims === undefined) {
          scanDoor.rememberRejected?.(r.buf, r.pos - TRACE_ID_BYTES)
          passBy(r, end, parentSeen ? root : undefined)
          return
        }
        rejected = true
      }
    } else if (tag === SPAN_SPAN_ID) spanIdAt = checkId(r, end, SPAN_ID_BYTES, 'span_id')
    else
      switch (tag) {
        case SPAN_PARENT_SPAN_ID:
          root = isRootParent(r, end)
          parentSeen = true
          break
        case SPAN_NAME: {
          const nameEnd = r.lengthEnd(end)
          aiName =
            startsWith(r.buf, r.pos, nameEnd, AI_NAME) || startsWith(r.buf, r.pos, nameEnd, LANGCHAIN4J_NAME)
          if (!aiName && profileCandidacy?.name) aiName = profileCandidacy.name(r.string(nameEnd))
          else r.skipString(nameEnd)
          break
        }
        case SPAN_TRACE_STATE:
          r.skipString(r.lengthEnd(end))
          break
        case SPAN_KIND:
          r.int32(end)
          break
        case SPAN_START:
        case SPAN_END:
          r.fixed64(end)
          break
        case SPAN_ATTRIBUTES: {
          const found = checkKeyValue(r, r.lengthEnd(end), true, true)
          if (found & ROLE_KEY) candidate = true
          if (found & MAY_HOLD_MESSAGES) messages = true
          break
        }
        case SPAN_EVENTS: {
          const event = scanEvent(r, r.lengthEnd(end))
          if (event & GEN_AI) candidate = true
          if (event & EXCEPTION) claim = true
          break
        }
        case SPAN_LINKS:
          scanLink(r, r.lengthEnd(end))
          break
        case SPAN_STATUS:
          if (scanStatus(r, r.lengthEnd(end)) === STATUS_ERROR) claim = true
          break
        default:
          r.skip(tag, end)
      }
  }
  if (traceId === '') throw r.error('invalid_id', 'span without trace_id', start)
  if (spanIdAt < 0) throw r.error('invalid_id', 'span without span_id', start)
  let flags =
    (root ? ROOT : 0) |
    (candidate || aiName || messages || profileCandidacy?.every ? CANDIDATE : 0) |
    (messages ? MESSAGES : 0)
  if (rejected) flags |= REJECTED | (mayClaim(r.buf, start, end, claim) ? CLAIM : 0)
  addScanned(traceId, spanIdAt, start, end, flags, group)
}

/**
 * Whether a span of a rejected trace may be claimed by the door's `alwaysScore` rules: a failure
 * sign (`claim`: status ERROR, an `exception` event) when errors are claimed, or a listed agent
 * name anywhere in its bytes.
 */
function mayClaim(buf: Uint8Array, start: number, end: number, failed: boolean): boolean {
  const door = scanDoor!
  if (failed && door.claims!.errors) return true
  if (door.nameBytes.length === 0) return false
  const bytes = Buffer.from(buf.buffer, buf.byteOffset + start, end - start)
  return door.nameBytes.some((name) => bytes.indexOf(name) >= 0)
}

/**
 * Passes a span by: counts it (and its trace, at its root) and moves past it. Whether it is a root
 * is read from its parent id, which producers write right after the trace and span ids; a span
 * whose fields come in another order may be miscounted as a root, which only the count sees.
 */
function passBy(r: ProtobufReader, end: number, knownRoot: boolean | undefined): void {
  let root = knownRoot ?? true
  while (knownRoot === undefined && r.pos < end) {
    const tag = r.tag(end)
    if (tag === SPAN_PARENT_SPAN_ID) {
      root = isRootParent(r, end)
      break
    }
    if (tag >>> 3 > SPAN_PARENT_SPAN_ID >>> 3) break
    r.skip(tag, end)
  }
  r.pos = end
  scanOut!.passedBySpans++
  if (root) scanOut!.passedByTraces++
}

/** Checks a parent span id (0 or 8 bytes) and tells whether it marks a root (empty or all zeros). */
function isRootParent(r: ProtobufReader, end: number): boolean {
  const idEnd = r.lengthEnd(end)
  const start = r.pos
  if (idEnd === start) return true
  if (idEnd - start !== SPAN_ID_BYTES) {
    throw r.error('invalid_id', `parent_span_id has ${idEnd - start} bytes, expected 8 or 0`, start)
  }
  r.pos = idEnd
  const buf = r.buf
  for (let i = start; i < idEnd; i++) if (buf[i] !== 0) return false
  return true
}

/** Checks a `Span.Event`; {@link GEN_AI} when its name starts with `gen_ai.`, {@link EXCEPTION} when it is `exception`. */
function scanEvent(r: ProtobufReader, end: number): number {
  let genAi = 0
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === EVENT_TIME) r.fixed64(end)
    else if (tag === EVENT_NAME) {
      const nameEnd = r.lengthEnd(end)
      if (startsWith(r.buf, r.pos, nameEnd, GEN_AI_EVENT)) genAi = GEN_AI
      else if (
        nameEnd - r.pos === EXCEPTION_EVENT.length &&
        startsWith(r.buf, r.pos, nameEnd, EXCEPTION_EVENT)
      )
        genAi = EXCEPTION
      else genAi = 0
      r.skipString(nameEnd)
    } else if (tag === EVENT_ATTRIBUTES) checkKeyValue(r, r.lengthEnd(end))
    else r.skip(tag, end)
  }
  return genAi
}

/** Checks a `Span.Link`: both ids present and of the right length. */
function scanLink(r: ProtobufReader, end: number): void {
  const start = r.pos
  let ids = 0
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === LINK_TRACE_ID) {
      checkId(r, end, TRACE_ID_BYTES, 'link trace_id')
      ids |= 1
    } else if (tag === LINK_SPAN_ID) {
      checkId(r, end, SPAN_ID_BYTES, 'link span_id')
      ids |= 2
    } else if (tag === LINK_TRACE_STATE) r.skipString(r.lengthEnd(end))
    else if (tag === LINK_ATTRIBUTES) checkKeyValue(r, r.lengthEnd(end))
    else r.skip(tag, end)
  }
  if (ids !== 3) throw r.error('invalid_id', 'link without trace_id or span_id', start)
}

/** Checks an id of `bytes` bytes and moves past it; returns where its bytes start. */
function checkId(r: ProtobufReader, end: number, bytes: number, what: string): number {
  const idEnd = r.lengthEnd(end)
  const at = r.pos
  if (idEnd - at !== bytes) {
    throw r.error('invalid_id', `${what} has ${idEnd - at} bytes, expected ${bytes}`, at)
  }
  r.pos = idEnd
  return at
}

/** Checks a `Status`; returns its code. */
function scanStatus(r: ProtobufReader, end: number): number {
  let code = 0
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === STATUS_CODE) code = r.int32(end)
    else if (tag === STATUS_MESSAGE) r.skipString(r.lengthEnd(end))
    else r.skip(tag, end)
  }
  return code
}

function startsWith(buf: Uint8Array, start: number, end: number, prefix: Uint8Array): boolean {
  if (end - start < prefix.length) return false
  for (let i = 0; i < prefix.length; i++) if (buf[start + i] !== prefix[i]) return false
  return true
}
