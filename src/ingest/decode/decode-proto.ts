import type {
  Attributes,
  AttributeValue,
  InstrumentationScope,
  Span,
  SpanEvent,
  SpanKind,
  SpanLink,
  SpanStatus,
  StatusCode,
} from '../../model/span.ts'
import { MAX_VALUE_DEPTH, setAttribute } from './attributes.ts'
import { OtlpDecodeError } from './decode-error.ts'
import { int64ToValue, uint64ToDecimal } from './int64-decimal.ts'
import { leadingByteOrderMarks, looksLikeText } from './looks-like-text.ts'
import { MessageCache } from './message-cache.ts'
import { detectOtlpEncoding } from './otlp-encoding.ts'
import { addDecodeWork, ProtobufReader } from './protobuf-reader.ts'
import type { OtlpSpanVisitor } from './span-visitor.ts'

const TRACE_ID_BYTES = 16
const SPAN_ID_BYTES = 8

// Tags are (field number << 3) | wire type, as in opentelemetry/proto/**/v1/*.proto.
// ExportTraceServiceRequest / TracesData
const REQUEST_RESOURCE_SPANS = 0x0a // 1 resource_spans: ResourceSpans
// ResourceSpans
const RS_RESOURCE = 0x0a // 1 resource: Resource
const RS_SCOPE_SPANS = 0x12 // 2 scope_spans: ScopeSpans
// Resource
const RESOURCE_ATTRIBUTES = 0x0a // 1 attributes: KeyValue
// ScopeSpans
const SS_SCOPE = 0x0a // 1 scope: InstrumentationScope
const SS_SPANS = 0x12 // 2 spans: Span
// InstrumentationScope
const SCOPE_NAME = 0x0a // 1 name
const SCOPE_VERSION = 0x12 // 2 version
const SCOPE_ATTRIBUTES = 0x1a // 3 attributes
// Span
const SPAN_TRACE_ID = 0x0a // 1 trace_id: bytes
const SPAN_SPAN_ID = 0x12 // 2 span_id: bytes
const SPAN_TRACE_STATE = 0x1a // 3 trace_state: string
const SPAN_PARENT_SPAN_ID = 0x22 // 4 parent_span_id: bytes
const SPAN_NAME = 0x2a // 5 name: string
const SPAN_KIND = 0x30 // 6 kind: enum
const SPAN_START = 0x39 // 7 start_time_unix_nano: fixed64
const SPAN_END = 0x41 // 8 end_time_unix_nano: fixed64
const SPAN_ATTRIBUTES = 0x4a // 9 attributes: KeyValue
const SPAN_EVENTS = 0x5a // 11 events: Event
const SPAN_LINKS = 0x6a // 13 links: Link
const SPAN_STATUS = 0x7a // 15 status: Status
// Span.Event
const EVENT_TIME = 0x09 // 1 time_unix_nano: fixed64
const EVENT_NAME = 0x12 // 2 name
const EVENT_ATTRIBUTES = 0x1a // 3 attributes
// Span.Link
const LINK_TRACE_ID = 0x0a // 1 trace_id
const LINK_SPAN_ID = 0x12 // 2 span_id
const LINK_TRACE_STATE = 0x1a // 3 trace_state
const LINK_ATTRIBUTES = 0x22 // 4 attributes
// Status
const STATUS_MESSAGE = 0x12 // 2 message
const STATUS_CODE = 0x18 // 3 code: enum
// KeyValue
const KV_KEY = 0x0a // 1 key
const KV_VALUE = 0x12 // 2 value: AnyValue
// AnyValue (oneof value)
const ANY_STRING = 0x0a // 1 string_value
const ANY_BOOL = 0x10 // 2 bool_value
const ANY_INT = 0x18 // 3 int_value: int64
const ANY_DOUBLE = 0x21 // 4 double_value
const ANY_ARRAY = 0x2a // 5 array_value: ArrayValue
const ANY_KVLIST = 0x32 // 6 kvlist_value: KeyValueList
const ANY_BYTES = 0x3a // 7 bytes_value
// ArrayValue / KeyValueList
const LIST_VALUES = 0x0a // 1 values

/** Decoded resources by their bytes: 64 services' resources of up to 8 KB each. */
const resourceCache = new MessageCache<Attributes>(6, 8192)

/**
 * Decodes a protobuf `ExportTraceServiceRequest` (or `TracesData`, same bytes) and hands every span
 * to `visit` with the encoded size of its `Span` message, in payload order.
 * Throws {@link OtlpDecodeError} on malformed input.
 */
export function visitOtlpProtoSpans(payload: Uint8Array, visit: OtlpSpanVisitor): void {
  const r = new ProtobufReader(payload)
  const limit = payload.length
  try {
    while (r.pos < limit) {
      const tag = r.tag(limit)
      if (tag === REQUEST_RESOURCE_SPANS) readResourceSpans(r, r.lengthEnd(limit), visit)
      else r.skip(tag, limit)
    }
  } catch (error) {
    // Text fails somewhere in its first bytes, in protobuf terms ("group in field 4") that would
    // mislead whoever reads the dead letter: say what it is instead.
    if (error instanceof OtlpDecodeError && looksLikeText(payload)) throw notOtlpText(payload, error)
    throw error
  }
}

function notOtlpText(payload: Uint8Array, cause: OtlpDecodeError): OtlpDecodeError {
  const marks = leadingByteOrderMarks(payload)
  const message =
    marks > 1
      ? `not an OTLP payload (looks like text after ${marks} byte-order marks, where OTLP/JSON may have one)`
      : detectOtlpEncoding(payload) === 'otlp_json'
        ? "not an OTLP protobuf payload (looks like OTLP/JSON text: decode it with encoding 'otlp_json' or 'auto')"
        : 'not an OTLP payload (looks like text, neither OTLP protobuf nor OTLP/JSON)'
  return new OtlpDecodeError('not_otlp', message, { cause })
}

/** Decodes a protobuf `ExportTraceServiceRequest` into normalized spans, in payload order. */
export function decodeOtlpProto(payload: Uint8Array): Span[] {
  const spans: Span[] = []
  visitOtlpProtoSpans(payload, (span) => {
    spans.push(span)
  })
  return spans
}

function readResourceSpans(r: ProtobufReader, end: number, visit: OtlpSpanVisitor): void {
  const start = r.pos
  // The resource may come after the spans on the wire: find it first.
  let resource: Attributes | undefined
  let merged = false
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === RS_RESOURCE) {
      const resourceEnd = r.lengthEnd(end)
      if (resource === undefined) resource = readCachedResource(r, resourceEnd)
      else {
        // A repeated message field merges into the first (protobuf semantics): into one copy, made
        // once, as the first may be a cached object; copying per repeat would be quadratic.
        if (!merged) {
          resource = { ...resource }
          addDecodeWork(Object.keys(resource).length)
          merged = true
        }
        readResource(r, resourceEnd, resource)
      }
    } else r.skip(tag, end)
  }
  resource ??= {}
  r.pos = start
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === RS_SCOPE_SPANS) readScopeSpans(r, r.lengthEnd(end), resource, visit)
    else r.skip(tag, end)
  }
}

/**
 * Reads a `Resource`, or returns the attributes object already decoded from the same bytes (in this
 * payload or an earlier one): a service's resource repeats in every record it exports.
 */
function readCachedResource(r: ProtobufReader, end: number): Attributes {
  const start = r.pos
  if (end - start > resourceCache.maxBytes) return readResource(r, end, {})
  const slot = resourceCache.slot(r.buf, start, end)
  const cached = resourceCache.get(slot, r.buf, start, end)
  if (cached !== undefined) {
    r.pos = end
    return cached
  }
  const attributes = readResource(r, end, {})
  resourceCache.set(slot, r.buf, start, end, attributes)
  return attributes
}

function readResource(r: ProtobufReader, end: number, attributes: Attributes): Attributes {
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === RESOURCE_ATTRIBUTES) readKeyValue(r, r.lengthEnd(end), attributes, 0)
    else r.skip(tag, end)
  }
  return attributes
}

function readScopeSpans(r: ProtobufReader, end: number, resource: Attributes, visit: OtlpSpanVisitor): void {
  const start = r.pos
  let scope: InstrumentationScope | undefined
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === SS_SCOPE) scope = readScope(r, r.lengthEnd(end), scope)
    else r.skip(tag, end)
  }
  scope ??= { name: '' }
  r.pos = start
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === SS_SPANS) {
      const spanEnd = r.lengthEnd(end)
      const size = spanEnd - r.pos
      visit(readSpan(r, spanEnd, resource, scope), size)
    } else r.skip(tag, end)
  }
}

/** Reads an `InstrumentationScope`, merged into `previous` when the field repeats. */
function readScope(
  r: ProtobufReader,
  end: number,
  previous: InstrumentationScope | undefined,
): InstrumentationScope {
  let name = previous?.name ?? ''
  let version = previous?.version
  let attributes = previous?.attributes
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case SCOPE_NAME:
        name = r.string(r.lengthEnd(end))
        break
      case SCOPE_VERSION:
        version = r.string(r.lengthEnd(end)) || undefined
        break
      case SCOPE_ATTRIBUTES:
        attributes ??= {}
        readKeyValue(r, r.lengthEnd(end), attributes, 0)
        break
      default:
        r.skip(tag, end)
    }
  }
  const scope: InstrumentationScope = { name }
  if (version !== undefined) scope.version = version
  if (attributes !== undefined) scope.attributes = attributes
  return scope
}

function readId(r: ProtobufReader, end: number, bytes: number, what: string): string {
  const idEnd = r.lengthEnd(end)
  if (idEnd - r.pos !== bytes) {
    throw r.error('invalid_id', `${what} has ${idEnd - r.pos} bytes, expected ${bytes}`, r.pos)
  }
  return bytes === TRACE_ID_BYTES ? r.traceId(idEnd) : r.hex(idEnd)
}

function readSpan(r: ProtobufReader, end: number, resource: Attributes, scope: InstrumentationScope): Span {
  const start = r.pos
  let traceId = ''
  let spanId = ''
  let parentSpanId: string | undefined
  let traceState: string | undefined
  let name = ''
  let kind = 0
  let startTime = '0'
  let endTime = '0'
  const attributes: Attributes = {}
  const events: SpanEvent[] = []
  const links: SpanLink[] = []
  let status: SpanStatus | undefined
  while (r.pos < end) {
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
      case SPAN_PARENT_SPAN_ID: {
        const idEnd = r.lengthEnd(end)
        if (idEnd === r.pos) parentSpanId = undefined
        else if (idEnd - r.pos !== SPAN_ID_BYTES) {
          throw r.error('invalid_id', `parent_span_id has ${idEnd - r.pos} bytes, expected 8 or 0`, r.pos)
        } else {
          parentSpanId = r.hex(idEnd)
          if (parentSpanId === '0000000000000000') parentSpanId = undefined
        }
        r.pos = idEnd
        break
      }
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
      case SPAN_ATTRIBUTES:
        readKeyValue(r, r.lengthEnd(end), attributes, 0)
        break
      case SPAN_EVENTS:
        events.push(readEvent(r, r.lengthEnd(end)))
        break
      case SPAN_LINKS:
        links.push(readLink(r, r.lengthEnd(end)))
        break
      case SPAN_STATUS:
        status = readStatus(r, r.lengthEnd(end), status)
        break
      default:
        r.skip(tag, end)
    }
  }
  if (traceId === '') throw r.error('invalid_id', 'span without trace_id', start)
  if (spanId === '') throw r.error('invalid_id', 'span without span_id', start)
  return {
    traceId,
    spanId,
    parentSpanId,
    traceState,
    name,
    kind: (kind >= 0 && kind <= 5 ? kind : 0) as SpanKind,
    startTimeUnixNano: startTime,
    endTimeUnixNano: endTime,
    attributes,
    events,
    links,
    status: status ?? { code: 0 },
    resource,
    scope,
  }
}

function readEvent(r: ProtobufReader, end: number): SpanEvent {
  let time = '0'
  let name = ''
  const attributes: Attributes = {}
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case EVENT_TIME:
        r.fixed64(end)
        time = uint64ToDecimal(r.lo, r.hi)
        break
      case EVENT_NAME:
        name = r.string(r.lengthEnd(end))
        break
      case EVENT_ATTRIBUTES:
        readKeyValue(r, r.lengthEnd(end), attributes, 0)
        break
      default:
        r.skip(tag, end)
    }
  }
  return { name, timeUnixNano: time, attributes }
}

function readLink(r: ProtobufReader, end: number): SpanLink {
  const start = r.pos
  let traceId = ''
  let spanId = ''
  let traceState: string | undefined
  const attributes: Attributes = {}
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case LINK_TRACE_ID:
        traceId = readId(r, end, TRACE_ID_BYTES, 'link trace_id')
        break
      case LINK_SPAN_ID:
        spanId = readId(r, end, SPAN_ID_BYTES, 'link span_id')
        break
      case LINK_TRACE_STATE:
        traceState = r.string(r.lengthEnd(end)) || undefined
        break
      case LINK_ATTRIBUTES:
        readKeyValue(r, r.lengthEnd(end), attributes, 0)
        break
      default:
        r.skip(tag, end)
    }
  }
  if (traceId === '' || spanId === '') throw r.error('invalid_id', 'link without trace_id or span_id', start)
  return { traceId, spanId, traceState, attributes }
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
  const status: SpanStatus = { code: (code >= 0 && code <= 2 ? code : 0) as StatusCode }
  if (message !== undefined) status.message = message
  return status
}

/** Reads one `KeyValue` message into `target`. */
function readKeyValue(r: ProtobufReader, end: number, target: Attributes, depth: number): void {
  let key = ''
  let value: AttributeValue = null
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === KV_KEY) key = r.key(r.lengthEnd(end))
    else if (tag === KV_VALUE) value = readAnyValue(r, r.lengthEnd(end), depth)
    else r.skip(tag, end)
  }
  setAttribute(target, key, value)
}

function readAnyValue(r: ProtobufReader, end: number, depth: number): AttributeValue {
  let value: AttributeValue = null
  while (r.pos < end) {
    const tag = r.tag(end)
    switch (tag) {
      case ANY_STRING:
        value = r.string(r.lengthEnd(end))
        break
      case ANY_BOOL:
        value = r.bool(end)
        break
      case ANY_INT:
        r.varint64(end)
        value = int64ToValue(r.lo, r.hi)
        break
      case ANY_DOUBLE:
        value = r.double(end)
        break
      case ANY_ARRAY:
        value = readArrayValue(r, r.lengthEnd(end), depth + 1)
        break
      case ANY_KVLIST:
        value = readKeyValueList(r, r.lengthEnd(end), depth + 1)
        break
      case ANY_BYTES:
        value = r.bytes(r.lengthEnd(end))
        break
      default:
        r.skip(tag, end)
    }
  }
  return value
}

function readArrayValue(r: ProtobufReader, end: number, depth: number): AttributeValue[] {
  if (depth > MAX_VALUE_DEPTH)
    throw r.error('too_deep', `values nested deeper than ${MAX_VALUE_DEPTH}`, r.pos)
  const values: AttributeValue[] = []
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === LIST_VALUES) values.push(readAnyValue(r, r.lengthEnd(end), depth))
    else r.skip(tag, end)
  }
  return values
}

function readKeyValueList(r: ProtobufReader, end: number, depth: number): Attributes {
  if (depth > MAX_VALUE_DEPTH)
    throw r.error('too_deep', `values nested deeper than ${MAX_VALUE_DEPTH}`, r.pos)
  const values: Attributes = {}
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === LIST_VALUES) readKeyValue(r, r.lengthEnd(end), values, depth)
    else r.skip(tag, end)
  }
  return values
}
