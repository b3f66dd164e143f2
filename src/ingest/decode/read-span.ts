import type {
  Attributes,
  InstrumentationScope,
  Span,
  SpanEvent,
  SpanLink,
  SpanStatus,
} from '../../model/span.ts'
import { uint64ToDecimal } from './int64-decimal.ts'
import { attachLazyAttributes, LazyAttributes, ownedBytes } from './lazy-attributes.ts'
import { addRole, checkKeyValue, readKeyValue } from './proto-values.ts'
import type { ProtobufReader } from './protobuf-reader.ts'

export const TRACE_ID_BYTES = 16
export const SPAN_ID_BYTES = 8

// Tags are (field number << 3) | wire type, as in opentelemetry/proto/trace/v1/trace.proto.
// Span
export const SPAN_TRACE_ID = 0x0a // 1 trace_id: bytes
export const SPAN_SPAN_ID = 0x12 // 2 span_id: bytes
export const SPAN_TRACE_STATE = 0x1a // 3 trace_state: string
export const SPAN_PARENT_SPAN_ID = 0x22 // 4 parent_span_id: bytes
export const SPAN_NAME = 0x2a // 5 name: string
export const SPAN_KIND = 0x30 // 6 kind: enum
export const SPAN_START = 0x39 // 7 start_time_unix_nano: fixed64
export const SPAN_END = 0x41 // 8 end_time_unix_nano: fixed64
export const SPAN_ATTRIBUTES = 0x4a // 9 attributes: KeyValue
export const SPAN_EVENTS = 0x5a // 11 events: Event
export const SPAN_LINKS = 0x6a // 13 links: Link
export const SPAN_STATUS = 0x7a // 15 status: Status
// Span.Event
export const EVENT_TIME = 0x09 // 1 time_unix_nano: fixed64
export const EVENT_NAME = 0x12 // 2 name
export const EVENT_ATTRIBUTES = 0x1a // 3 attributes
// Span.Link
export const LINK_TRACE_ID = 0x0a // 1 trace_id
export const LINK_SPAN_ID = 0x12 // 2 span_id
export const LINK_TRACE_STATE = 0x1a // 3 trace_state
export const LINK_ATTRIBUTES = 0x22 // 4 attributes
// Status
export const STATUS_MESSAGE = 0x12 // 2 message
export const STATUS_CODE = 0x18 // 3 code: enum

/** Shared by every span without events or links: nothing may add to them. */
const NO_EVENTS: SpanEvent[] = Object.freeze([]) as unknown as SpanEvent[]
const NO_LINKS: SpanLink[] = Object.freeze([]) as unknown as SpanLink[]
/** Marks an event or link whose attributes the span keeps undecoded (never seen outside). */
const NOT_YET: Attributes = Object.freeze({}) as Attributes
/** The status of a span that has none (unset); frozen, as it is shared. */
const UNSET_STATUS: SpanStatus = Object.freeze({ code: 0 }) as SpanStatus

/**
 * Spans from this size on keep their attributes (and their events' and links') encoded until first
 * read. Smaller ones are decoded at once: their keys and short values come from the decoder's
 * string caches, shared between spans, where a copy of their bytes would cost more memory (the
 * keys again in every span) for little time saved.
 */
export const LAZY_SPAN_BYTES = 1024

/**
 * Reads one `Span` message (`r.pos..end`). The envelope (ids, name, kind, times, status, events'
 * names and times, links' ids) is decoded now. In a span of {@link LAZY_SPAN_BYTES} or more, the
 * attributes of the span, its events and links are checked now (malformed input throws here) and
 * kept as one copy of their bytes, decoded on first read, but for the role keys
 * (`role-attributes.ts`), decoded now for `isAgentRunSpan`; a smaller span is decoded at once.
 * `inPlace`: `r.buf` does not change while the span lives (`ScannedSpans`): the views of a large
 * span read those bytes in place instead of a copy. (Small spans are still decoded at once: a
 * view per small span costs transform more, through the proxy, than decoding it now.)
 */
export function readSpan(
  r: ProtobufReader,
  end: number,
  resource: Attributes,
  scope: InstrumentationScope,
  inPlace = false,
): Span {
  const start = r.pos
  const lazy = end - start >= LAZY_SPAN_BYTES
  let traceId = ''
  let spanId = ''
  let parentSpanId: string | undefined
  let traceState: string | undefined
  let name = ''
  let kind = 0
  let startTime = '0'
  let endTime = '0'
  const attributes: Attributes = {}
  let kept: Kept | undefined
  let events = NO_EVENTS
  let links = NO_LINKS
  let status: SpanStatus | undefined
  while (r.pos < end) {
    const at = r.pos
    const tag = r.tag(end)
    switch (tag) {
      case SPAN_TRACE_ID:
        traceId = readId(r, end, TRACE_ID_BYTES, 'trace_id')
        break
      case SPAN_SPAN_ID:
        spanId = readId(r, end, SPAN_ID_BYTES, 'span_id')
        break
      case SPAN_TRACE_STATE:
        traceState = r.string(r.lengthEnd(end)) || undefined
        break
      case SPAN_PARENT_SPAN_ID:
        parentSpanId = readParentId(r, end)
        break
      case SPAN_NAME:
        name = r.string(r.lengthEnd(end))
        break
      case SPAN_KIND:
        kind = r.int32(end)
        break
      case SPAN_START:
        r.fixed64(end)
        startTime = uint64ToDecimal(r.lo, r.hi)
        break
      case SPAN_END:
        r.fixed64(end)
        endTime = uint64ToDecimal(r.lo, r.hi)
        break
      case SPAN_ATTRIBUTES: {
        const kvEnd = r.lengthEnd(end)
        if (lazy) kept = checkAttribute(r, kvEnd, at, kept)
        else readKeyValue(r, kvEnd, attributes, 0)
        break
      }
      case SPAN_EVENTS:
      case SPAN_LINKS: {
        const itemEnd = r.lengthEnd(end)
        const itemStart = r.pos
        const isEvent = tag === SPAN_EVENTS
        const item = isEvent ? readEvent(r, itemEnd, lazy) : readLink(r, itemEnd, lazy)
        if (isEvent) events = append(events, NO_EVENTS, item as SpanEvent)
        else links = append(links, NO_LINKS, item as SpanLink)
        if (item.attributes === NOT_YET) {
          kept = waitToKeep(kept, at, item, itemStart, itemEnd, isEvent ? EVENT_ATTRIBUTES : LINK_ATTRIBUTES)
        }
        break
      }
      case SPAN_STATUS:
        status = readStatus(r, r.lengthEnd(end), status)
        break
      default:
        r.skip(tag, end)
    }
  }
  if (traceId === '') throw r.error('invalid_id', 'span without trace_id', start)
  if (spanId === '') throw r.error('invalid_id', 'span without span_id', start)
  const span: Span = {
    traceId,
    spanId,
    parentSpanId,
    traceState,
    name,
    kind: (kind >= 0 && kind <= 5 ? kind : 0) as Span['kind'],
    startTimeUnixNano: startTime,
    endTimeUnixNano: endTime,
    attributes,
    events,
    links,
    status: status ?? UNSET_STATUS,
    resource,
    scope,
  }
  if (kept !== undefined) keepAll(r, span, kept, inPlace)
  return span
}

/**
 * What a lazily read span keeps: payload offsets of the first and last byte to copy, the role
 * attributes decoded already, the size of the span's own attributes, and the events and links
 * whose attributes wait for the copy, as [holder, start, end, field] each.
 */
interface Kept {
  from: number
  to: number
  roles: Attributes | undefined
  attributeBytes: number
  nested: (SpanEvent | SpanLink | number)[] | undefined
}

function newKept(from: number): Kept {
  return { from, to: from, roles: undefined, attributeBytes: 0, nested: undefined }
}

/** Checks the span's `KeyValue` in `r.pos..end` (its field found at `at`) and notes it kept; role keys are decoded. */
function checkAttribute(r: ProtobufReader, end: number, at: number, kept: Kept | undefined): Kept {
  const k = kept ?? newKept(at)
  const start = r.pos
  if (checkKeyValue(r, end)) k.roles = addRole(r, start, end, k.roles)
  k.to = end
  k.attributeBytes += end - at
  return k
}

/** `list` with `item` added: a new array in place of the shared empty one. */
function append<T>(list: T[], empty: T[], item: T): T[] {
  const out = list === empty ? [] : list
  out.push(item)
  return out
}

/** Notes an event or link (`holder`, its message at `start..end`, found at `at`) whose attributes to keep. */
function waitToKeep(
  kept: Kept | undefined,
  at: number,
  holder: SpanEvent | SpanLink,
  start: number,
  end: number,
  field: number,
): Kept {
  const k = kept ?? newKept(at)
  k.nested ??= []
  k.nested.push(holder, start, end, field)
  k.to = end
  return k
}

/**
 * Copies the kept bytes once (or, `inPlace`, reads them where they are) and gives the span, its
 * events and links lazy views over them.
 */
function keepAll(r: ProtobufReader, span: Span, kept: Kept, inPlace: boolean): void {
  const src = inPlace ? r.buf : ownedBytes(r, kept.from, kept.to)
  const base = inPlace ? 0 : kept.from
  if (kept.attributeBytes > 0) {
    const own = new LazyAttributes(
      src,
      kept.from - base,
      kept.to - base,
      SPAN_ATTRIBUTES,
      kept.roles,
      kept.attributeBytes,
    )
    attachLazyAttributes(span, own)
  }
  const nested = kept.nested
  if (nested === undefined) return
  for (let i = 0; i < nested.length; i += 4) {
    const start = (nested[i + 1] as number) - base
    const end = (nested[i + 2] as number) - base
    const state = new LazyAttributes(src, start, end, nested[i + 3] as number, undefined, end - start)
    attachLazyAttributes(nested[i] as SpanEvent | SpanLink, state)
  }
}

export function readId(r: ProtobufReader, end: number, bytes: number, what: string): string {
  const idEnd = r.lengthEnd(end)
  if (idEnd - r.pos !== bytes) {
    throw r.error('invalid_id', `${what} has ${idEnd - r.pos} bytes, expected ${bytes}`, r.pos)
  }
  return bytes === TRACE_ID_BYTES ? r.traceId(idEnd) : r.hex(idEnd)
}

/** A parent span id; empty or all zeros means a root span (undefined). */
export function readParentId(r: ProtobufReader, end: number): string | undefined {
  const idEnd = r.lengthEnd(end)
  if (idEnd === r.pos) return undefined
  if (idEnd - r.pos !== SPAN_ID_BYTES) {
    throw r.error('invalid_id', `parent_span_id has ${idEnd - r.pos} bytes, expected 8 or 0`, r.pos)
  }
  const id = r.hex(idEnd)
  return id === '0000000000000000' ? undefined : id
}

/** Reads a `Span.Event`; `lazy`: its attributes are only checked, and left `NOT_YET` if any. */
function readEvent(r: ProtobufReader, end: number, lazy: boolean): SpanEvent {
  let time = '0'
  let name = ''
  let attributes: Attributes = {}
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === EVENT_TIME) {
      r.fixed64(end)
      time = uint64ToDecimal(r.lo, r.hi)
    } else if (tag === EVENT_NAME) name = r.string(r.lengthEnd(end))
    else if (tag === EVENT_ATTRIBUTES) attributes = readNestedAttribute(r, r.lengthEnd(end), lazy, attributes)
    else r.skip(tag, end)
  }
  return { name, timeUnixNano: time, attributes }
}

/** Reads a `Span.Link`; `lazy`: its attributes are only checked, and left `NOT_YET` if any. */
function readLink(r: ProtobufReader, end: number, lazy: boolean): SpanLink {
  const start = r.pos
  let traceId = ''
  let spanId = ''
  let traceState: string | undefined
  let attributes: Attributes = {}
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === LINK_TRACE_ID) traceId = readId(r, end, TRACE_ID_BYTES, 'link trace_id')
    else if (tag === LINK_SPAN_ID) spanId = readId(r, end, SPAN_ID_BYTES, 'link span_id')
    else if (tag === LINK_TRACE_STATE) traceState = r.string(r.lengthEnd(end)) || undefined
    else if (tag === LINK_ATTRIBUTES) attributes = readNestedAttribute(r, r.lengthEnd(end), lazy, attributes)
    else r.skip(tag, end)
  }
  if (traceId === '' || spanId === '') throw r.error('invalid_id', 'link without trace_id or span_id', start)
  return { traceId, spanId, traceState, attributes }
}

/** One `KeyValue` of an event or link: decoded into `attributes`, or checked (then `NOT_YET`). */
function readNestedAttribute(
  r: ProtobufReader,
  end: number,
  lazy: boolean,
  attributes: Attributes,
): Attributes {
  if (!lazy) {
    readKeyValue(r, end, attributes, 0)
    return attributes
  }
  checkKeyValue(r, end)
  return NOT_YET
}

/** Reads a `Status`, merged into `previous` when the field repeats. */
function readStatus(r: ProtobufReader, end: number, previous: SpanStatus | undefined): SpanStatus {
  let code: number = previous?.code ?? 0
  let message = previous?.message
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === STATUS_CODE) code = r.int32(end)
    else if (tag === STATUS_MESSAGE) message = r.string(r.lengthEnd(end)) || undefined
    else r.skip(tag, end)
  }
  const status: SpanStatus = { code: (code >= 0 && code <= 2 ? code : 0) as SpanStatus['code'] }
  if (message !== undefined) status.message = message
  return status
}
