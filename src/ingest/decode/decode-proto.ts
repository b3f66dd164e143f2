import type { Attributes, InstrumentationScope, Span } from '../../model/span.ts'
import { OtlpDecodeError } from './decode-error.ts'
import { leadingByteOrderMarks, looksLikeText } from './looks-like-text.ts'
import { MessageCache } from './message-cache.ts'
import { detectOtlpEncoding } from './otlp-encoding.ts'
import { readKeyValue } from './proto-values.ts'
import { addDecodeWork, ProtobufReader } from './protobuf-reader.ts'
import { readSpan } from './read-span.ts'
import type { OtlpSpanVisitor } from './span-visitor.ts'

// Tags are (field number << 3) | wire type, as in opentelemetry/proto/**/v1/*.proto.
// ExportTraceServiceRequest / TracesData
export const REQUEST_RESOURCE_SPANS = 0x0a // 1 resource_spans: ResourceSpans
// ResourceSpans
const RS_RESOURCE = 0x0a // 1 resource: Resource
export const RS_SCOPE_SPANS = 0x12 // 2 scope_spans: ScopeSpans
// Resource
const RESOURCE_ATTRIBUTES = 0x0a // 1 attributes: KeyValue
// ScopeSpans
const SS_SCOPE = 0x0a // 1 scope: InstrumentationScope
export const SS_SPANS = 0x12 // 2 spans: Span
// InstrumentationScope
const SCOPE_NAME = 0x0a // 1 name
const SCOPE_VERSION = 0x12 // 2 version
const SCOPE_ATTRIBUTES = 0x1a // 3 attributes

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

export function notOtlpText(payload: Uint8Array, cause: OtlpDecodeError): OtlpDecodeError {
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
  const resource = findResource(r, end)
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === RS_SCOPE_SPANS) readScopeSpans(r, r.lengthEnd(end), resource, visit)
    else r.skip(tag, end)
  }
}

/**
 * The resource of the `ResourceSpans` at `r.pos..end`, wherever it is on the wire (it may come
 * after the spans), repeated fields merged; `r.pos` is left where it was.
 */
export function findResource(r: ProtobufReader, end: number): Attributes {
  const start = r.pos
  const resource = readResourceField(r, end, (tag) => r.skip(tag, end))
  r.pos = start
  return resource
}

/**
 * Reads the `ResourceSpans` at `r.pos..end` to its end: its resource (wherever it is on the wire,
 * repeated fields merged) is returned, every other field is handed to `other` with its tag.
 */
export function readResourceField(r: ProtobufReader, end: number, other: (tag: number) => void): Attributes {
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
    } else other(tag)
  }
  return resource ?? {}
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
  const scope = findScope(r, end)
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === SS_SPANS) {
      const spanEnd = r.lengthEnd(end)
      const size = spanEnd - r.pos
      visit(readSpan(r, spanEnd, resource, scope), size)
    } else r.skip(tag, end)
  }
}

/** The scope of the `ScopeSpans` at `r.pos..end`, repeated fields merged; `r.pos` is left where it was. */
export function findScope(r: ProtobufReader, end: number): InstrumentationScope {
  const start = r.pos
  const scope = readScopeField(r, end, (tag) => r.skip(tag, end))
  r.pos = start
  return scope
}

/**
 * Reads the `ScopeSpans` at `r.pos..end` to its end: its scope (repeated fields merged) is
 * returned, every other field is handed to `other` with its tag.
 */
export function readScopeField(
  r: ProtobufReader,
  end: number,
  other: (tag: number) => void,
): InstrumentationScope {
  let scope: InstrumentationScope | undefined
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === SS_SCOPE) scope = readScope(r, r.lengthEnd(end), scope)
    else other(tag)
  }
  return scope ?? { name: '' }
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
