import { ProtobufReader, WireType } from '../ingest/decode/protobuf-reader.ts'

/**
 * Attributes of score spans whose values are doubles by convention (`gen_ai.evaluation.score.value`
 * is a double in the GenAI semantic conventions). JavaScript has one number type and the OTel JS
 * transformer writes every whole number as an `intValue`, so a score of 1 would reach typed
 * backends as an int and a score of 0.5 as a double: two types for one attribute.
 */
export const doubleAttributeKeys: ReadonlySet<string> = new Set([
  'gen_ai.evaluation.score.value',
  'tracescore.sampling.rate',
])

type Rewrite = (message: Uint8Array) => Uint8Array

// OTLP field numbers along the path to span and event attributes (opentelemetry-proto trace/v1).
const KEY_VALUE_KEY = 1
const KEY_VALUE_VALUE = 2
const ANY_VALUE_INT = 3
const ANY_VALUE_DOUBLE = 4

/** A `KeyValue` whose key is in `doubleAttributeKeys` and whose value is an int, rewritten as a double. */
const keyValue: Rewrite = (bytes) => {
  const r = new ProtobufReader(bytes)
  let key = ''
  let value: { fieldStart: number; start: number; end: number } | undefined
  while (r.pos < bytes.length) {
    const fieldStart = r.pos
    const tag = r.tag(bytes.length)
    if (tag === ((KEY_VALUE_KEY << 3) | WireType.LENGTH_DELIMITED)) key = r.string(r.lengthEnd(bytes.length))
    else if (tag === ((KEY_VALUE_VALUE << 3) | WireType.LENGTH_DELIMITED)) {
      const end = r.lengthEnd(bytes.length)
      value = { fieldStart, start: r.pos, end }
      r.pos = end
    } else r.skip(tag, bytes.length)
  }
  if (!value || !doubleAttributeKeys.has(key)) return bytes
  const int = anyValueInt(bytes.subarray(value.start, value.end))
  if (int === undefined) return bytes
  const double = new Uint8Array(9)
  double[0] = (ANY_VALUE_DOUBLE << 3) | WireType.FIXED64
  new DataView(double.buffer).setFloat64(1, int, true)
  return concat([
    bytes.subarray(0, value.fieldStart),
    field(KEY_VALUE_VALUE, double),
    bytes.subarray(value.end),
  ])
}

/** The int64 of an `AnyValue` holding an `int_value`, else undefined. */
function anyValueInt(bytes: Uint8Array): number | undefined {
  const r = new ProtobufReader(bytes)
  let int: number | undefined
  while (r.pos < bytes.length) {
    const tag = r.tag(bytes.length)
    if (tag === ((ANY_VALUE_INT << 3) | WireType.VARINT)) {
      r.varint64(bytes.length)
      int = (r.hi | 0) * 2 ** 32 + r.lo
    } else {
      r.skip(tag, bytes.length)
      int = undefined
    }
  }
  return int
}

/** Rewrites the given length-delimited fields of a message and copies every other field as it is. */
function message(fields: Record<number, Rewrite>): Rewrite {
  return (bytes) => {
    const r = new ProtobufReader(bytes)
    const parts: Uint8Array[] = []
    while (r.pos < bytes.length) {
      const start = r.pos
      const tag = r.tag(bytes.length)
      const rewrite = fields[tag >>> 3]
      if (rewrite && (tag & 7) === WireType.LENGTH_DELIMITED) {
        const end = r.lengthEnd(bytes.length)
        parts.push(field(tag >>> 3, rewrite(bytes.subarray(r.pos, end))))
        r.pos = end
      } else {
        r.skip(tag, bytes.length)
        parts.push(bytes.subarray(start, r.pos))
      }
    }
    return concat(parts)
  }
}

// ExportTraceServiceRequest.resource_spans(1) → ResourceSpans.scope_spans(2) → ScopeSpans.spans(2)
// → Span.attributes(9) and Span.events(11) → Event.attributes(3).
const event = message({ 3: keyValue })
const span = message({ 9: keyValue, 11: event })
const exportRequest = message({ 1: message({ 2: message({ 2: span }) }) })

/**
 * An OTLP/protobuf `ExportTraceServiceRequest` with every `int_value` of a double-typed score
 * attribute (span attributes and event attributes) written as a `double_value`; all other bytes
 * are kept as they are.
 */
export function withDoubleScoresProto(request: Uint8Array): Uint8Array {
  return exportRequest(request)
}

interface JsonKeyValue {
  key: string
  value?: { intValue?: number | string; doubleValue?: number }
}
interface JsonSpan {
  attributes?: JsonKeyValue[]
  events?: { attributes?: JsonKeyValue[] }[]
}

/** The same for an OTLP/JSON request body: `{ intValue }` of those keys becomes `{ doubleValue }`. */
export function withDoubleScoresJson(request: Uint8Array): Uint8Array {
  const body = JSON.parse(new TextDecoder().decode(request)) as {
    resourceSpans?: { scopeSpans?: { spans?: JsonSpan[] }[] }[]
  }
  const fix = (attributes: JsonKeyValue[] = []) => {
    for (const kv of attributes) {
      if (doubleAttributeKeys.has(kv.key) && kv.value?.intValue !== undefined) {
        kv.value = { doubleValue: Number(kv.value.intValue) }
      }
    }
  }
  for (const rs of body.resourceSpans ?? []) {
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        fix(s.attributes)
        for (const e of s.events ?? []) fix(e.attributes)
      }
    }
  }
  return new TextEncoder().encode(JSON.stringify(body))
}

/** A length-delimited field: tag, length varint, content. */
function field(fieldNumber: number, content: Uint8Array): Uint8Array {
  return concat([varint((fieldNumber << 3) | WireType.LENGTH_DELIMITED), varint(content.length), content])
}

function varint(value: number): Uint8Array {
  const out: number[] = []
  let v = value >>> 0
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80)
    v >>>= 7
  }
  out.push(v)
  return Uint8Array.from(out)
}

function concat(parts: Uint8Array[]): Uint8Array {
  return Buffer.concat(parts)
}
