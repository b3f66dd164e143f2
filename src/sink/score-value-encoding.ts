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

// OTLP field numbers along the path to span and event attributes (opentelemetry-proto trace/v1).
const KEY_VALUE_KEY = 1
const KEY_VALUE_VALUE = 2
const ANY_VALUE_INT = 3
const ANY_VALUE_DOUBLE = 4
/** `AnyValue.double_value` as written: its tag, then 8 bytes. */
const DOUBLE_VALUE_SIZE = 9

/** What a message holds, on the path to the attributes: its length-delimited fields to look into, or a `KeyValue`. */
type Shape = { fields: Record<number, Shape> } | 'keyValue'

// ExportTraceServiceRequest.resource_spans(1) → ResourceSpans.scope_spans(2) → ScopeSpans.spans(2)
// → Span.attributes(9) and Span.events(11) → Event.attributes(3).
const EVENT: Shape = { fields: { 3: 'keyValue' } }
const SPAN: Shape = { fields: { 9: 'keyValue', 11: EVENT } }
const EXPORT_REQUEST: Shape = { fields: { 1: { fields: { 2: { fields: { 2: SPAN } } } } } }

/** The keys of `doubleAttributeKeys` as UTF-8, compared with a KeyValue's key bytes without decoding them. */
const doubleKeyBytes = [...doubleAttributeKeys].map((key) => new TextEncoder().encode(key))

/**
 * A message that changes: its bytes `start..end` in the request, its size once rewritten, and
 * its fields that change (in wire order). Only messages on the path to a rewritten value get one.
 */
interface Changed {
  start: number
  end: number
  size: number
  edits: Edit[]
}

/** One changed field: its tag from `fieldStart` to `lengthStart`, then either a changed message or a double. */
interface Edit {
  fieldStart: number
  lengthStart: number
  end: number
  message?: Changed
  double?: number
}

/**
 * An OTLP/protobuf `ExportTraceServiceRequest` with every `int_value` of a double-typed score
 * attribute (span attributes and event attributes) written as a `double_value`; all other bytes
 * are kept as they are. One pass finds what changes (reading keys as bytes, allocating only for
 * the messages that change), a second writes the result into one buffer of its final size; a
 * request with nothing to change is returned as it is.
 */
export function withDoubleScoresProto(request: Uint8Array): Uint8Array {
  const r = new ProtobufReader(request)
  const changed = plan(r, 0, request.length, EXPORT_REQUEST)
  if (!changed) return request
  const out = new Uint8Array(changed.size)
  write(request, changed, out, new DataView(out.buffer), 0)
  return out
}

function plan(r: ProtobufReader, start: number, end: number, shape: Shape): Changed | undefined {
  if (shape === 'keyValue') return planKeyValue(r, start, end)
  let edits: Edit[] | undefined
  let size = end - start
  r.pos = start
  while (r.pos < end) {
    const fieldStart = r.pos
    const tag = r.tag(end)
    const inner = shape.fields[tag >>> 3]
    if (inner === undefined || (tag & 7) !== WireType.LENGTH_DELIMITED) {
      r.skip(tag, end)
      continue
    }
    const lengthStart = r.pos
    const contentEnd = r.lengthEnd(end)
    const message = plan(r, r.pos, contentEnd, inner)
    r.pos = contentEnd
    if (!message) continue
    edits ??= []
    edits.push({ fieldStart, lengthStart, end: contentEnd, message })
    size += varintSize(message.size) + message.size - (contentEnd - lengthStart)
  }
  return edits && { start, end, size, edits }
}

/** A `KeyValue` whose key is in `doubleAttributeKeys` and whose value is an int: its value becomes a double. */
function planKeyValue(r: ProtobufReader, start: number, end: number): Changed | undefined {
  let keyStart = -1
  let keyEnd = -1
  let value: Edit | undefined
  r.pos = start
  while (r.pos < end) {
    const fieldStart = r.pos
    const tag = r.tag(end)
    if (tag === ((KEY_VALUE_KEY << 3) | WireType.LENGTH_DELIMITED)) {
      keyEnd = r.lengthEnd(end)
      keyStart = r.pos
      r.pos = keyEnd
    } else if (tag === ((KEY_VALUE_VALUE << 3) | WireType.LENGTH_DELIMITED)) {
      const lengthStart = r.pos
      const valueEnd = r.lengthEnd(end)
      const int = anyValueInt(r, r.pos, valueEnd)
      value = int === undefined ? undefined : { fieldStart, lengthStart, end: valueEnd, double: int }
      r.pos = valueEnd
    } else r.skip(tag, end)
  }
  if (!value || !isDoubleKey(r.buf, keyStart, keyEnd)) return undefined
  const size = end - start + 1 + DOUBLE_VALUE_SIZE - (value.end - value.lengthStart)
  return { start, end, size, edits: [value] }
}

function isDoubleKey(bytes: Uint8Array, start: number, end: number): boolean {
  if (start < 0) return false
  return doubleKeyBytes.some((key) => {
    if (key.length !== end - start) return false
    for (let i = 0; i < key.length; i++) if (key[i] !== bytes[start + i]) return false
    return true
  })
}

/** The int64 of an `AnyValue` (`start..end`) holding an `int_value`, else undefined. */
function anyValueInt(r: ProtobufReader, start: number, end: number): number | undefined {
  let int: number | undefined
  r.pos = start
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === ((ANY_VALUE_INT << 3) | WireType.VARINT)) {
      r.varint64(end)
      int = (r.hi | 0) * 2 ** 32 + r.lo
    } else {
      r.skip(tag, end)
      int = undefined
    }
  }
  return int
}

/** Writes `changed` (a message of `request`, rewritten) at `at` in `out`; returns the position after it. */
function write(request: Uint8Array, changed: Changed, out: Uint8Array, view: DataView, at: number): number {
  let from = changed.start
  for (const edit of changed.edits) {
    out.set(request.subarray(from, edit.lengthStart), at)
    at += edit.lengthStart - from
    if (edit.message) {
      at = writeVarint(out, at, edit.message.size)
      at = write(request, edit.message, out, view, at)
    } else {
      at = writeVarint(out, at, DOUBLE_VALUE_SIZE)
      out[at] = (ANY_VALUE_DOUBLE << 3) | WireType.FIXED64
      view.setFloat64(at + 1, edit.double!, true)
      at += DOUBLE_VALUE_SIZE
    }
    from = edit.end
  }
  out.set(request.subarray(from, changed.end), at)
  return at + changed.end - from
}

function varintSize(value: number): number {
  let size = 1
  for (let v = value >>> 7; v > 0; v >>>= 7) size++
  return size
}

function writeVarint(out: Uint8Array, at: number, value: number): number {
  let v = value >>> 0
  while (v > 0x7f) {
    out[at++] = (v & 0x7f) | 0x80
    v >>>= 7
  }
  out[at++] = v
  return at
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
