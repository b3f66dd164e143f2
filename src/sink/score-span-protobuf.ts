import type { Attributes, AttributeValue, HrTime, Link, SpanContext, SpanStatus } from '@opentelemetry/api'
import type { InstrumentationScope } from '@opentelemetry/core'
import type { Resource } from '@opentelemetry/resources'
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base'
import { WireType } from '../ingest/decode/protobuf-reader.ts'
import { ProtobufWriter } from './protobuf-writer.ts'
import { doubleAttributeKeys } from './score-value-encoding.ts'

/**
 * The OTLP/protobuf `ExportTraceServiceRequest` of score spans, byte for byte what the OTel JS
 * `ProtobufTraceSerializer` writes (fields in its order, spans grouped by resource and scope
 * object, defaults written where it writes them) except that the values of `doubleAttributeKeys`
 * on spans and events are always doubles: the OTel serializer writes a whole number as an int.
 * Written in two passes (measure, then write into a buffer of the exact size), in less than half
 * the CPU time of the OTel serializer plus a rewrite of its output
 * (bench/score-span-serialization.bench.ts). The test compares it with the installed OTel
 * serializer, so an OTel upgrade that changes the bytes shows there.
 */
export function serializeScoreSpanRequest(spans: ReadableSpan[]): Uint8Array {
  const groups = groupByResourceAndScope(spans)
  const w = new ProtobufWriter()
  writeRequest(w, groups)
  w.startWriting()
  writeRequest(w, groups)
  return w.finish()
}

type Groups = Map<Resource, Map<InstrumentationScope, ReadableSpan[]>>

/** Spans grouped by resource object, then by scope object, in order of first appearance (as OTel groups them). */
function groupByResourceAndScope(spans: ReadableSpan[]): Groups {
  const groups: Groups = new Map()
  for (const span of spans) {
    let scopes = groups.get(span.resource)
    if (!scopes) {
      scopes = new Map()
      groups.set(span.resource, scopes)
    }
    const group = scopes.get(span.instrumentationScope)
    if (group) group.push(span)
    else scopes.set(span.instrumentationScope, [span])
  }
  return groups
}

// Field numbers: opentelemetry-proto collector/trace/v1 and trace/v1, common/v1, resource/v1.
function writeRequest(w: ProtobufWriter, groups: Groups): void {
  for (const [resource, scopes] of groups) {
    const resourceSpans = w.start(1) // ExportTraceServiceRequest.resource_spans
    const r = w.start(1) // ResourceSpans.resource
    writeAttributes(w, 1, resource.attributes, false)
    w.tag(2, WireType.VARINT) // Resource.dropped_attributes_count
    w.varint(0)
    w.end(r)
    for (const [scope, spans] of scopes) writeScopeSpans(w, scope, spans)
    if (resource.schemaUrl) {
      w.tag(3, WireType.LENGTH_DELIMITED)
      w.string(resource.schemaUrl)
    }
    w.end(resourceSpans)
  }
}

function writeScopeSpans(w: ProtobufWriter, scope: InstrumentationScope, spans: ReadableSpan[]): void {
  const scopeSpans = w.start(2) // ResourceSpans.scope_spans
  const s = w.start(1) // ScopeSpans.scope
  w.tag(1, WireType.LENGTH_DELIMITED)
  w.string(scope.name)
  if (scope.version) {
    w.tag(2, WireType.LENGTH_DELIMITED)
    w.string(scope.version)
  }
  w.end(s)
  for (const span of spans) writeSpan(w, span)
  if (scope.schemaUrl) {
    w.tag(3, WireType.LENGTH_DELIMITED)
    w.string(scope.schemaUrl)
  }
  w.end(scopeSpans)
}

function writeSpan(w: ProtobufWriter, span: ReadableSpan): void {
  const s = w.start(2) // ScopeSpans.spans
  const context = span.spanContext()
  writeIds(w, context)
  const parent = span.parentSpanContext?.spanId
  if (parent) {
    w.tag(4, WireType.LENGTH_DELIMITED)
    w.hexBytes(parent)
  }
  w.tag(5, WireType.LENGTH_DELIMITED)
  w.string(span.name)
  if (span.kind != null) {
    w.tag(6, WireType.VARINT)
    w.varint(span.kind + 1) // OTLP's kinds start at 1 (0 is unspecified)
  }
  w.tag(7, WireType.FIXED64)
  writeTime(w, span.startTime)
  w.tag(8, WireType.FIXED64)
  writeTime(w, span.endTime)
  writeAttributes(w, 9, span.attributes, true)
  w.tag(10, WireType.VARINT)
  w.varint(span.droppedAttributesCount)
  for (const event of span.events) writeEvent(w, event)
  w.tag(12, WireType.VARINT)
  w.varint(span.droppedEventsCount)
  for (const link of span.links) writeLink(w, link)
  w.tag(14, WireType.VARINT)
  w.varint(span.droppedLinksCount)
  writeStatus(w, span.status)
  w.tag(16, WireType.FIXED32)
  w.fixed32(spanFlags(context.traceFlags, span.parentSpanContext?.isRemote))
  w.end(s)
}

/** trace_id, span_id and trace_state: fields 1-3 of both Span and Span.Link. */
function writeIds(w: ProtobufWriter, context: SpanContext): void {
  w.tag(1, WireType.LENGTH_DELIMITED)
  w.hexBytes(context.traceId)
  w.tag(2, WireType.LENGTH_DELIMITED)
  w.hexBytes(context.spanId)
  const traceState = context.traceState?.serialize()
  if (traceState) {
    w.tag(3, WireType.LENGTH_DELIMITED)
    w.string(traceState)
  }
}

function writeEvent(w: ProtobufWriter, event: TimedEvent): void {
  const e = w.start(11) // Span.events
  w.tag(1, WireType.FIXED64)
  writeTime(w, event.time)
  w.tag(2, WireType.LENGTH_DELIMITED)
  w.string(event.name)
  if (event.attributes) writeAttributes(w, 3, event.attributes, true)
  w.tag(4, WireType.VARINT)
  w.varint(event.droppedAttributesCount || 0)
  w.end(e)
}

function writeLink(w: ProtobufWriter, link: Link): void {
  const l = w.start(13) // Span.links
  writeIds(w, link.context)
  if (link.attributes) writeAttributes(w, 4, link.attributes, false)
  w.tag(5, WireType.VARINT)
  w.varint(link.droppedAttributesCount || 0)
  w.tag(6, WireType.FIXED32)
  w.fixed32(spanFlags(link.context.traceFlags, link.context.isRemote))
  w.end(l)
}

function writeStatus(w: ProtobufWriter, status: SpanStatus): void {
  const s = w.start(15) // Span.status
  if (status.message) {
    w.tag(2, WireType.LENGTH_DELIMITED)
    w.string(status.message)
  }
  w.tag(3, WireType.VARINT)
  w.varint(status.code)
  w.end(s)
}

/** Span and link flags: the W3C trace flags, "has is_remote" (0x100) and is_remote (0x200). */
function spanFlags(traceFlags: number, isRemote: boolean | undefined): number {
  return (traceFlags & 0xff) | 0x100 | (isRemote ? 0x200 : 0)
}

/** An HrTime as fixed64 nanoseconds (exact: the low 32 bits by integer arithmetic, the carry from a double). */
function writeTime(w: ProtobufWriter, [seconds, nanos]: HrTime): void {
  const lo = ((Math.imul(seconds, 1e9) >>> 0) + nanos) >>> 0
  const hi = Math.round((seconds * 1e9 + nanos - lo) / 2 ** 32) >>> 0
  w.fixed64(lo, hi)
}

/** UTF-8 of attribute keys: a few dozen keys (the score span's and the resource's) recur in every span. */
const encodedKeys = new Map<string, Uint8Array>()

function keyBytes(key: string): Uint8Array {
  let bytes = encodedKeys.get(key)
  if (!bytes) {
    bytes = Buffer.from(key)
    if (encodedKeys.size < 1000) encodedKeys.set(key, bytes) // bounded, should keys ever vary
  }
  return bytes
}

/**
 * Repeated `KeyValue`s in attribute order; with `doubles`, the values of `doubleAttributeKeys`
 * are written as doubles.
 */
function writeAttributes(w: ProtobufWriter, field: number, attributes: Attributes, doubles: boolean): void {
  for (const key of Object.keys(attributes)) {
    const value = attributes[key]
    const kv = w.start(field)
    w.tag(1, WireType.LENGTH_DELIMITED)
    w.bytes(keyBytes(key))
    const v = w.start(2)
    if (doubles && typeof value === 'number' && doubleAttributeKeys.has(key)) {
      w.tag(4, WireType.FIXED64)
      w.double(value === 0 ? 0 : value) // -0 too: an int 0 before the rewrite to doubles
    } else writeAnyValue(w, value)
    w.end(v)
    w.end(kv)
  }
}

/**
 * The content of an `AnyValue`, as the OTel serializer writes it: an integer in the int64 range as
 * `int_value`, any other number as `double_value`; null and undefined (alone or in an array) as an
 * empty AnyValue.
 */
function writeAnyValue(w: ProtobufWriter, value: AttributeValue | null | undefined): void {
  if (typeof value === 'string') {
    w.tag(1, WireType.LENGTH_DELIMITED)
    w.string(value)
  } else if (typeof value === 'boolean') {
    w.tag(2, WireType.VARINT)
    w.varint(value ? 1 : 0)
  } else if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63) {
      w.tag(3, WireType.VARINT)
      w.varint(value)
    } else {
      w.tag(4, WireType.FIXED64)
      w.double(value)
    }
  } else if (Array.isArray(value)) {
    const array = w.start(5) // AnyValue.array_value
    for (const item of value) {
      const v = w.start(1) // ArrayValue.values
      writeAnyValue(w, item)
      w.end(v)
    }
    w.end(array)
  } else if (value != null) {
    throw new TypeError(`a score span attribute of unsupported type: ${typeof value}`)
  }
}
