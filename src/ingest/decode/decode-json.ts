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
import type { OtlpSpanVisitor } from './span-visitor.ts'

const HEX_LOWER = /^[0-9a-f]+$/
const HEX_ANY = /^[0-9a-fA-F]+$/
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/
/** Base64 with whitespace allowed; written so that no input makes it backtrack more than linearly. */
const BASE64_LOOSE = /^[A-Za-z0-9+/_\-\s]*(?:=\s*){0,2}$/
const UNSIGNED = /^[0-9]+$/
const SIGNED = /^-?[0-9]+$/

const SPAN_KIND_NAMES: Record<string, SpanKind> = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
}
const STATUS_CODE_NAMES: Record<string, StatusCode> = {
  STATUS_CODE_UNSET: 0,
  STATUS_CODE_OK: 1,
  STATUS_CODE_ERROR: 2,
}

const SPAN_LEVELS = ['resourceSpans', 'scopeSpans', 'spans'] as const

/** Where the normalizer is, for error messages (indices are updated in the loops, the path is built only on error). */
export interface Cursor {
  /** The names of the three levels (default `resourceSpans`, `scopeSpans`, `spans`; logs name theirs). */
  names?: readonly [string, string, string]
  rs: number
  ss: number
  span: number
  /** Sub-location inside the span (`events[2]`, `links[0]`), or '' . */
  inner: string
}

/** Throws {@link OtlpDecodeError} with the JSON path of `cur` and `field`. */
export function fail(
  cur: Cursor,
  field: string,
  message: string,
  code: OtlpDecodeError['code'] = 'invalid_field',
): never {
  const [resources, scopes, items] = cur.names ?? SPAN_LEVELS
  let path = resources
  if (cur.rs >= 0) path += `[${cur.rs}]`
  if (cur.ss >= 0) path += `.${scopes}[${cur.ss}]`
  if (cur.span >= 0) path += `.${items}[${cur.span}]`
  if (cur.inner) path += `.${cur.inner}`
  if (field) path += `.${field}`
  throw new OtlpDecodeError(code, message, { path })
}

/** Parses OTLP/JSON text, turning a syntax error into {@link OtlpDecodeError} (`invalid_json`). */
export function parseOtlpJsonText(text: string): unknown {
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause)
    const position = /position (\d+)/.exec(message)
    const details: { offset?: number; cause: unknown } = { cause }
    if (position) details.offset = Number(position[1])
    throw new OtlpDecodeError('invalid_json', `not JSON: ${message}`, details)
  }
}

/** Decodes OTLP/JSON text (one `ExportTraceServiceRequest`) into normalized spans, in payload order. */
export function decodeOtlpJson(text: string): Span[] {
  const spans: Span[] = []
  visitOtlpJsonRequest(
    parseOtlpJsonText(text),
    (span) => {
      spans.push(span)
    },
    text.length,
  )
  return spans
}

/** Shared with the OTLP/JSON logs decoder (`decode-json-logs.ts`). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Shared with the OTLP/JSON logs decoder (`decode-json-logs.ts`). */
export function list(value: unknown, cur: Cursor, field: string): unknown[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value)) fail(cur, field, 'expected an array')
  return value
}

/**
 * Normalizes an already parsed OTLP/JSON `ExportTraceServiceRequest` and hands every span to `visit`
 * with its share of `payloadSize` (the text length, split evenly among the spans).
 * Throws {@link OtlpDecodeError} when the value is not a valid request.
 */
export function visitOtlpJsonRequest(request: unknown, visit: OtlpSpanVisitor, payloadSize = 0): void {
  walkOtlpJsonRequest(
    request,
    'ExportTraceServiceRequest',
    SPAN_LEVELS,
    payloadSize,
    (item, resource, scope, cur, share) => {
      cur.inner = ''
      visit(spanOf(item, resource, scope, cur), share)
    },
  )
}

/**
 * Walks an already parsed OTLP/JSON export request of any signal (`request` named `what` in errors,
 * its three levels named by `levels`: `resourceSpans`, `scopeSpans`, `spans` or the logs' names),
 * handing each item to `read` with its resource, scope, the cursor (for error paths) and its share
 * of `payloadSize`. Throws {@link OtlpDecodeError} when the levels are not what the request needs.
 */
export function walkOtlpJsonRequest(
  request: unknown,
  what: string,
  levels: readonly [string, string, string],
  payloadSize: number,
  read: (
    item: unknown,
    resource: Attributes,
    scope: InstrumentationScope,
    cur: Cursor,
    share: number,
  ) => void,
): void {
  const [resources, scopes, items] = levels
  const cur: Cursor = { names: levels, rs: -1, ss: -1, span: -1, inner: '' }
  if (!isObject(request)) {
    const got = request === null ? 'null' : Array.isArray(request) ? 'an array' : `a ${typeof request}`
    throw new OtlpDecodeError('invalid_field', `expected an ${what} object at the top level, got ${got}`)
  }
  const resourceList = list(request[resources], cur, '')
  let count = 0
  for (const rs of resourceList) {
    if (!isObject(rs)) continue
    const scopeList = rs[scopes]
    for (const ss of Array.isArray(scopeList) ? scopeList : []) {
      if (isObject(ss) && Array.isArray(ss[items])) count += (ss[items] as unknown[]).length
    }
  }
  const share = count > 0 ? Math.round(payloadSize / count) : 0
  for (let i = 0; i < resourceList.length; i++) {
    cur.rs = i
    cur.ss = -1
    const rs = resourceList[i]
    if (!isObject(rs)) fail(cur, '', 'expected an object')
    let resource: Attributes = {}
    if (rs.resource !== undefined && rs.resource !== null) {
      if (!isObject(rs.resource)) fail(cur, 'resource', 'expected an object')
      resource = attributesOf(rs.resource.attributes, cur, 'resource.attributes', 0)
    }
    const scopeList = list(rs[scopes], cur, scopes)
    for (let j = 0; j < scopeList.length; j++) {
      cur.ss = j
      cur.span = -1
      const ss = scopeList[j]
      if (!isObject(ss)) fail(cur, '', 'expected an object')
      const scope = scopeOf(ss.scope, cur)
      const itemList = list(ss[items], cur, items)
      for (let k = 0; k < itemList.length; k++) {
        cur.span = k
        read(itemList[k], resource, scope, cur, share)
      }
    }
  }
}

/** Shared with the OTLP/JSON logs decoder (`decode-json-logs.ts`). */
export function scopeOf(value: unknown, cur: Cursor): InstrumentationScope {
  if (value === undefined || value === null) return { name: '' }
  if (!isObject(value)) fail(cur, 'scope', 'expected an object')
  const scope: InstrumentationScope = { name: stringOf(value.name, cur, 'scope.name') }
  const version = stringOf(value.version, cur, 'scope.version')
  if (version) scope.version = version
  const attributes = attributesOf(value.attributes, cur, 'scope.attributes', 0)
  for (const _ in attributes) {
    scope.attributes = attributes
    break
  }
  return scope
}

/** Shared with the OTLP/JSON logs decoder (`decode-json-logs.ts`). */
export function stringOf(value: unknown, cur: Cursor, field: string): string {
  if (typeof value === 'string') return value
  if (value === undefined || value === null) return ''
  fail(cur, field, 'expected a string')
}

/** Shared with the OTLP/JSON logs decoder (`decode-json-logs.ts`). */
export function idOf(value: unknown, bytes: number, cur: Cursor, field: string): string {
  if (typeof value !== 'string') fail(cur, field, 'expected a hex id string', 'invalid_id')
  if (value.length === bytes * 2) {
    if (HEX_LOWER.test(value)) return value
    if (HEX_ANY.test(value)) return value.toLowerCase()
  } else if (
    // Padded (24/12 chars) or unpadded (22/11) base64 or base64url.
    (value.length === Math.ceil(bytes / 3) * 4 || value.length === Math.ceil((bytes * 4) / 3)) &&
    BASE64.test(value)
  ) {
    const raw = Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64')
    if (raw.length === bytes) return raw.toString('hex')
  }
  fail(
    cur,
    field,
    `expected ${bytes * 2} hex digits (or base64 of ${bytes} bytes), got ${JSON.stringify(value).slice(0, 60)}`,
    'invalid_id',
  )
}

/** Shared with the OTLP/JSON logs decoder (`decode-json-logs.ts`). */
export function optionalIdOf(value: unknown, bytes: number, cur: Cursor, field: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined
  const id = idOf(value, bytes, cur, field)
  return /^0+$/.test(id) ? undefined : id
}

const UINT64_MAX = '18446744073709551615'
/** 2^64 as a double (exact): every JSON number at or above it is out of range. */
const TWO_64 = 2 ** 64

/**
 * A `fixed64` time (decimal string or JSON number) as its canonical decimal text. Values outside
 * uint64 are rejected: they have no meaning as nanoseconds and would become an invalid date.
 */
/** Shared with the OTLP/JSON logs decoder (`decode-json-logs.ts`). */
export function timeOf(value: unknown, cur: Cursor, field: string): string {
  if (typeof value === 'string') {
    if (!UNSIGNED.test(value)) fail(cur, field, 'expected an unsigned 64-bit integer')
    let digits = value
    if (value.length > 1 && value.charCodeAt(0) === 0x30) {
      digits = value.replace(/^0+/, '') || '0'
    }
    // Same length: decimal order is text order.
    if (digits.length > 20 || (digits.length === 20 && digits > UINT64_MAX)) {
      fail(cur, field, 'expected an unsigned 64-bit integer, got a larger value')
    }
    return digits
  }
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0 || value >= TWO_64) {
      fail(cur, field, 'expected an unsigned 64-bit integer')
    }
    return value <= Number.MAX_SAFE_INTEGER ? String(value) : BigInt(value).toString()
  }
  if (value === undefined || value === null) return '0'
  fail(cur, field, 'expected an unsigned integer')
}

/** Shared with the OTLP/JSON logs decoder (`decode-json-logs.ts`). */
export function enumOf(
  value: unknown,
  names: Record<string, number>,
  max: number,
  cur: Cursor,
  field: string,
): number {
  if (value === undefined || value === null) return 0
  if (typeof value === 'number' && Number.isInteger(value)) return value >= 0 && value <= max ? value : 0
  if (typeof value === 'string') {
    if (Object.hasOwn(names, value)) return names[value]!
  }
  fail(cur, field, 'expected an enum integer')
}

function spanOf(value: unknown, resource: Attributes, scope: InstrumentationScope, cur: Cursor): Span {
  if (!isObject(value)) fail(cur, '', 'expected an object')
  const traceId = idOf(value.traceId, 16, cur, 'traceId')
  const spanId = idOf(value.spanId, 8, cur, 'spanId')
  const parentSpanId = optionalIdOf(value.parentSpanId, 8, cur, 'parentSpanId')
  const traceState = stringOf(value.traceState, cur, 'traceState') || undefined
  const name = stringOf(value.name, cur, 'name')
  const kind = enumOf(value.kind, SPAN_KIND_NAMES, 5, cur, 'kind') as SpanKind
  const startTimeUnixNano = timeOf(value.startTimeUnixNano, cur, 'startTimeUnixNano')
  const endTimeUnixNano = timeOf(value.endTimeUnixNano, cur, 'endTimeUnixNano')
  const attributes = attributesOf(value.attributes, cur, 'attributes', 0)
  const rawEvents = list(value.events, cur, 'events')
  const events: SpanEvent[] = []
  for (let i = 0; i < rawEvents.length; i++) {
    cur.inner = `events[${i}]`
    events.push(eventOf(rawEvents[i], cur))
  }
  const rawLinks = list(value.links, cur, 'links')
  const links: SpanLink[] = []
  for (let i = 0; i < rawLinks.length; i++) {
    cur.inner = `links[${i}]`
    links.push(linkOf(rawLinks[i], cur))
  }
  cur.inner = ''
  return {
    traceId,
    spanId,
    parentSpanId,
    traceState,
    name,
    kind,
    startTimeUnixNano,
    endTimeUnixNano,
    attributes,
    events,
    links,
    status: statusOf(value.status, cur),
    resource,
    scope,
  }
}

function eventOf(value: unknown, cur: Cursor): SpanEvent {
  if (!isObject(value)) fail(cur, '', 'expected an object')
  return {
    name: stringOf(value.name, cur, 'name'),
    timeUnixNano: timeOf(value.timeUnixNano, cur, 'timeUnixNano'),
    attributes: attributesOf(value.attributes, cur, 'attributes', 0),
  }
}

function linkOf(value: unknown, cur: Cursor): SpanLink {
  if (!isObject(value)) fail(cur, '', 'expected an object')
  return {
    traceId: idOf(value.traceId, 16, cur, 'traceId'),
    spanId: idOf(value.spanId, 8, cur, 'spanId'),
    traceState: stringOf(value.traceState, cur, 'traceState') || undefined,
    attributes: attributesOf(value.attributes, cur, 'attributes', 0),
  }
}

function statusOf(value: unknown, cur: Cursor): SpanStatus {
  if (value === undefined || value === null) return { code: 0 }
  if (!isObject(value)) fail(cur, 'status', 'expected an object')
  const status: SpanStatus = {
    code: enumOf(value.code, STATUS_CODE_NAMES, 2, cur, 'status.code') as StatusCode,
  }
  const message = stringOf(value.message, cur, 'status.message')
  if (message) status.message = message
  return status
}

/** Shared with the OTLP/JSON logs decoder (`decode-json-logs.ts`). */
export function attributesOf(value: unknown, cur: Cursor, field: string, depth: number): Attributes {
  const attributes: Attributes = {}
  if (value === undefined || value === null) return attributes
  if (!Array.isArray(value)) fail(cur, field, 'expected an array of {key, value}')
  for (let i = 0; i < value.length; i++) {
    const kv = value[i]
    if (!isObject(kv)) fail(cur, `${field}[${i}]`, 'expected {key, value}')
    const key = kv.key
    if (typeof key !== 'string') fail(cur, `${field}[${i}].key`, 'expected a string')
    setAttribute(attributes, key, anyValueOf(kv.value, cur, field, depth))
  }
  return attributes
}

/** Shared with the OTLP/JSON logs decoder (`decode-json-logs.ts`). */
export function anyValueOf(value: unknown, cur: Cursor, field: string, depth: number): AttributeValue {
  if (value === undefined || value === null) return null
  if (!isObject(value)) fail(cur, field, 'expected an AnyValue object')
  const s = value.stringValue
  if (s !== undefined && s !== null) {
    if (typeof s !== 'string') fail(cur, field, 'stringValue must be a string')
    return s
  }
  const b = value.boolValue
  if (b !== undefined && b !== null) {
    if (typeof b !== 'boolean') fail(cur, field, 'boolValue must be a boolean')
    return b
  }
  const n = value.intValue
  if (n !== undefined && n !== null) return intOf(n, cur, field)
  const d = value.doubleValue
  if (d !== undefined && d !== null) return doubleOf(d, cur, field)
  const a = value.arrayValue
  if (a !== undefined && a !== null) {
    if (depth >= MAX_VALUE_DEPTH) fail(cur, field, `values nested deeper than ${MAX_VALUE_DEPTH}`, 'too_deep')
    if (!isObject(a)) fail(cur, field, 'arrayValue must be an object')
    const items = list(a.values, cur, field)
    const out: AttributeValue[] = new Array(items.length)
    for (let i = 0; i < items.length; i++) out[i] = anyValueOf(items[i], cur, field, depth + 1)
    return out
  }
  const kv = value.kvlistValue
  if (kv !== undefined && kv !== null) {
    if (depth >= MAX_VALUE_DEPTH) fail(cur, field, `values nested deeper than ${MAX_VALUE_DEPTH}`, 'too_deep')
    if (!isObject(kv)) fail(cur, field, 'kvlistValue must be an object')
    return attributesOf(kv.values, cur, field, depth + 1)
  }
  const bytes = value.bytesValue
  if (bytes !== undefined && bytes !== null) {
    if (typeof bytes !== 'string' || !BASE64_LOOSE.test(bytes)) fail(cur, field, 'bytesValue must be base64')
    // A copy: a small Buffer is a view into Node's shared 8 KB pool, which it would keep alive.
    return new Uint8Array(Buffer.from(bytes, 'base64'))
  }
  return null
}

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

/**
 * An `intValue` (decimal string or JSON number) as a number when safe, else its decimal text. A JSON
 * number beyond 2^53 has already lost precision in `JSON.parse`; it gives the text of that double.
 */
function intOf(value: unknown, cur: Cursor, field: string): number | string {
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return value
    if (Number.isInteger(value)) return int64Text(BigInt(value), cur, field)
  } else if (typeof value === 'string' && value.length <= 20 && SIGNED.test(value)) {
    const n = Number(value)
    return Number.isSafeInteger(n) ? n : int64Text(BigInt(value), cur, field)
  }
  fail(cur, field, 'intValue must be an integer or a decimal string')
}

/** Decimal text of an integer beyond 2^53, which must still fit in int64. */
function int64Text(value: bigint, cur: Cursor, field: string): string {
  if (value < INT64_MIN || value > INT64_MAX) fail(cur, field, 'intValue out of the int64 range')
  return value.toString()
}

function doubleOf(value: unknown, cur: Cursor, field: string): number {
  if (typeof value === 'number') return value
  if (typeof value === 'string') {
    if (value === 'NaN') return Number.NaN
    if (value === 'Infinity') return Number.POSITIVE_INFINITY
    if (value === '-Infinity') return Number.NEGATIVE_INFINITY
    const n = Number(value)
    if (value.trim() !== '' && !Number.isNaN(n)) return n
  }
  fail(cur, field, 'doubleValue must be a number')
}
