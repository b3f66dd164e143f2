import { ProtobufReader, WireType } from '../ingest/decode/protobuf-reader.ts'

/**
 * Where the fixed-size fields of one span sit in an OTLP/protobuf `ExportTraceServiceRequest`:
 * byte offsets of its ids (16-byte trace ids, 8-byte span ids) and of its fixed64 timestamps.
 * These fields keep their length whatever their value, so a replay can rewrite them in place and
 * leave every other byte as the instrumentation serialized it.
 */
export interface SpanFieldOffsets {
  traceId: number
  spanId: number
  /** Absent for a root span (empty parent_span_id). */
  parentSpanId?: number
  startTime?: number
  endTime?: number
  eventTimes: number[]
  links: { traceId: number; spanId: number }[]
}

const LEN = WireType.LENGTH_DELIMITED
const FIXED64 = WireType.FIXED64
const tagOf = (field: number, wire: number) => (field << 3) | wire

/**
 * The field offsets of every span of a request, in order. Field numbers (opentelemetry-proto
 * trace/v1): request.resource_spans(1) → scope_spans(2) → spans(2) → Span.{trace_id(1), span_id(2),
 * parent_span_id(4), start_time_unix_nano(7), end_time_unix_nano(8), events(11) →
 * Event.time_unix_nano(1), links(13) → Link.{trace_id(1), span_id(2)}}.
 */
export function spanFieldOffsets(payload: Uint8Array): SpanFieldOffsets[] {
  const spans: SpanFieldOffsets[] = []
  forEachField(payload, 0, payload.length, tagOf(1, LEN), (rs, rsEnd) =>
    forEachField(payload, rs, rsEnd, tagOf(2, LEN), (ss, ssEnd) =>
      forEachField(payload, ss, ssEnd, tagOf(2, LEN), (span, spanEnd) =>
        spans.push(spanOffsets(payload, span, spanEnd)),
      ),
    ),
  )
  return spans
}

function spanOffsets(buf: Uint8Array, start: number, end: number): SpanFieldOffsets {
  const span: SpanFieldOffsets = { traceId: -1, spanId: -1, eventTimes: [], links: [] }
  fields(buf, start, end, (tag, at, fieldEnd) => {
    if (tag === tagOf(1, LEN)) span.traceId = at
    else if (tag === tagOf(2, LEN)) span.spanId = at
    else if (tag === tagOf(4, LEN) && fieldEnd > at) span.parentSpanId = at
    else if (tag === tagOf(7, FIXED64)) span.startTime = at
    else if (tag === tagOf(8, FIXED64)) span.endTime = at
    else if (tag === tagOf(11, LEN)) {
      fields(buf, at, fieldEnd, (t, p) => t === tagOf(1, FIXED64) && span.eventTimes.push(p))
    } else if (tag === tagOf(13, LEN)) {
      const link = { traceId: -1, spanId: -1 }
      fields(buf, at, fieldEnd, (t, p) => {
        if (t === tagOf(1, LEN)) link.traceId = p
        else if (t === tagOf(2, LEN)) link.spanId = p
      })
      span.links.push(link)
    }
  })
  return span
}

/** Calls `visit(tag, valueStart, valueEnd)` for each field of the message in `buf[start, end)`. */
function fields(
  buf: Uint8Array,
  start: number,
  end: number,
  visit: (tag: number, at: number, fieldEnd: number) => unknown,
): void {
  const r = new ProtobufReader(buf)
  r.pos = start
  while (r.pos < end) {
    const tag = r.tag(end)
    if ((tag & 7) === LEN) {
      const fieldEnd = r.lengthEnd(end)
      visit(tag, r.pos, fieldEnd)
      r.pos = fieldEnd
    } else {
      const at = r.pos
      r.skip(tag, end)
      visit(tag, at, r.pos)
    }
  }
}

/** Calls `visit(contentStart, contentEnd)` for each length-delimited field with tag `wanted`. */
function forEachField(
  buf: Uint8Array,
  start: number,
  end: number,
  wanted: number,
  visit: (start: number, end: number) => unknown,
): void {
  fields(buf, start, end, (tag, at, fieldEnd) => tag === wanted && visit(at, fieldEnd))
}
