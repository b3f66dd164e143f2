import type { Attributes, AttributeValue, Span } from '../../../model/span.ts'
import { ProtoWriter } from './proto-writer.ts'

/** A typed attribute value: what goes on the wire, independent of how it decodes. */
export type GenValue =
  | { t: 'string'; v: string }
  | { t: 'bool'; v: boolean }
  | { t: 'int'; v: bigint }
  | { t: 'double'; v: number }
  | { t: 'bytes'; v: Uint8Array }
  | { t: 'array'; v: GenValue[] }
  | { t: 'kvlist'; v: [string, GenValue][] }
  | { t: 'empty' }

/** A span event as written on the wire by the test encoders. */
export interface GenEvent {
  name: string
  time: bigint
  attributes: [string, GenValue][]
}
/** A span link as written on the wire by the test encoders. */
export interface GenLink {
  traceId: string
  spanId: string
  traceState: string
  attributes: [string, GenValue][]
}
/** A span as written on the wire by the test encoders. */
export interface GenSpan {
  traceId: string
  spanId: string
  parentSpanId: string
  traceState: string
  name: string
  kind: number
  start: bigint
  end: bigint
  attributes: [string, GenValue][]
  events: GenEvent[]
  links: GenLink[]
  status: { code: number; message: string } | undefined
}
/** A ScopeSpans: its scope (absent when undefined) and spans. */
export interface GenScopeSpans {
  scope: { name: string; version: string; attributes: [string, GenValue][] } | undefined
  spans: GenSpan[]
}
/** A ResourceSpans: its resource attributes (absent when undefined) and scope spans. */
export interface GenResourceSpans {
  resource: [string, GenValue][] | undefined
  scopeSpans: GenScopeSpans[]
}

/** Deterministic pseudo-random numbers in [0, 1) from a seed (mulberry32, shared with the agent traffic generator). */
export { seededRandom as rng } from '../../testing/agent-traffic.ts'

const INT64_EDGES = [
  0n,
  1n,
  -1n,
  127n,
  128n,
  2n ** 31n - 1n,
  -(2n ** 31n),
  2n ** 32n,
  2n ** 53n - 1n,
  -(2n ** 53n - 1n),
  2n ** 53n,
  -(2n ** 53n),
  2n ** 63n - 1n,
  -(2n ** 63n),
  1747872000123456789n,
]
const STRINGS = [
  '',
  'a',
  'gen_ai.operation.name',
  'ünïcödé ✓',
  '😀 astral 𝄞',
  '\u0000nul',
  'x'.repeat(40),
  '日本語テキスト',
]

/** Random GenAI-ish payload generator covering every AnyValue kind. */
export class SpanGenerator {
  private readonly random: () => number
  constructor(random: () => number) {
    this.random = random
  }

  int(n: number): number {
    return Math.floor(this.random() * n)
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!
  }
  hex(bytes: number): string {
    let s = ''
    for (let i = 0; i < bytes; i++) s += this.int(256).toString(16).padStart(2, '0')
    // All-zero ids mean "no id"; keep generated ids valid.
    return /^0+$/.test(s) ? `${s.slice(0, -1)}1` : s
  }
  string(): string {
    if (this.random() < 0.5) return this.pick(STRINGS)
    const len = this.int(60)
    let s = ''
    for (let i = 0; i < len; i++) {
      const r = this.random()
      if (r < 0.7) s += String.fromCharCode(32 + this.int(95))
      else if (r < 0.85) s += String.fromCharCode(0xa0 + this.int(0x700))
      else if (r < 0.95) s += String.fromCodePoint(0x1f300 + this.int(0x300))
      else s += String.fromCharCode(0x3040 + this.int(0x100))
    }
    return s
  }
  value(depth: number): GenValue {
    const r = this.int(depth > 3 ? 6 : 8)
    switch (r) {
      case 0:
        return { t: 'string', v: this.string() }
      case 1:
        return { t: 'bool', v: this.random() < 0.5 }
      case 2:
        return {
          t: 'int',
          v: this.random() < 0.5 ? this.pick(INT64_EDGES) : BigInt(this.int(2_000_000) - 1_000_000),
        }
      case 3:
        return { t: 'double', v: this.pick([0.5, -1.25, 1e300, Number.MIN_VALUE, this.random() * 1e6]) }
      case 4:
        return { t: 'bytes', v: Uint8Array.from({ length: this.int(40) }, () => this.int(256)) }
      case 5:
        return this.random() < 0.3 ? { t: 'empty' } : { t: 'string', v: this.string() }
      case 6:
        return { t: 'array', v: Array.from({ length: this.int(5) }, () => this.value(depth + 1)) }
      default:
        return { t: 'kvlist', v: this.keyValues(depth + 1, 4) }
    }
  }
  keyValues(depth: number, max: number): [string, GenValue][] {
    const n = this.int(max + 1)
    const seen = new Set<string>()
    const out: [string, GenValue][] = []
    for (let i = 0; i < n; i++) {
      const key = this.random() < 0.7 ? `attr.${this.int(50)}` : this.string()
      if (seen.has(key)) continue
      seen.add(key)
      out.push([key, this.value(depth)])
    }
    return out
  }
  time(): bigint {
    return this.random() < 0.1
      ? this.pick([0n, 2n ** 64n - 1n, 2n ** 53n])
      : 1747872000000000000n + BigInt(this.int(1e9))
  }
  span(): GenSpan {
    return {
      traceId: this.hex(16),
      spanId: this.hex(8),
      parentSpanId: this.random() < 0.3 ? '' : this.hex(8),
      traceState: this.random() < 0.2 ? 'k=v' : '',
      name: this.string(),
      kind: this.int(6),
      start: this.time(),
      end: this.time(),
      attributes: this.keyValues(0, 8),
      events: Array.from({ length: this.int(3) }, () => ({
        name: this.string(),
        time: this.time(),
        attributes: this.keyValues(0, 3),
      })),
      links: Array.from({ length: this.int(2) }, () => ({
        traceId: this.hex(16),
        spanId: this.hex(8),
        traceState: this.random() < 0.5 ? '' : 'a=b',
        attributes: this.keyValues(0, 2),
      })),
      status:
        this.random() < 0.2
          ? undefined
          : { code: this.int(3), message: this.random() < 0.5 ? '' : this.string() },
    }
  }
  request(): GenResourceSpans[] {
    return Array.from({ length: 1 + this.int(3) }, () => ({
      resource: this.random() < 0.1 ? undefined : this.keyValues(0, 4),
      scopeSpans: Array.from({ length: 1 + this.int(2) }, () => ({
        scope:
          this.random() < 0.1
            ? undefined
            : {
                name: this.string(),
                version: this.random() < 0.5 ? '' : '1.0',
                attributes: this.keyValues(0, 2),
              },
        spans: Array.from({ length: this.int(5) }, () => this.span()),
      })),
    }))
  }
}

// ---------------------------------------------------------------- expected decode

/** The JS value a correct decoder must produce for a typed value. */
export function expectedValue(value: GenValue): AttributeValue {
  switch (value.t) {
    case 'string':
    case 'bool':
    case 'double':
    case 'bytes':
      return value.v
    case 'int': {
      const n = Number(value.v)
      return Number.isSafeInteger(n) ? n : value.v.toString()
    }
    case 'array':
      return value.v.map(expectedValue)
    case 'kvlist':
      return expectedAttributes(value.v)
    case 'empty':
      return null
  }
}

/** The attributes object a correct decoder must produce for typed key-values. */
export function expectedAttributes(kvs: [string, GenValue][]): Attributes {
  const out: Attributes = {}
  for (const [k, v] of kvs) {
    if (k === '__proto__')
      Object.defineProperty(out, k, { value: expectedValue(v), enumerable: true, writable: true })
    else out[k] = expectedValue(v)
  }
  return out
}

/** The normalized spans a correct decoder must produce for a generated request. */
export function expectedSpans(request: GenResourceSpans[]): Span[] {
  const spans: Span[] = []
  for (const rs of request) {
    const resource = expectedAttributes(rs.resource ?? [])
    for (const ss of rs.scopeSpans) {
      const scope: Span['scope'] = { name: ss.scope?.name ?? '' }
      if (ss.scope?.version) scope.version = ss.scope.version
      if (ss.scope && ss.scope.attributes.length > 0)
        scope.attributes = expectedAttributes(ss.scope.attributes)
      for (const s of ss.spans) {
        const status: Span['status'] = { code: (s.status?.code ?? 0) as Span['status']['code'] }
        if (s.status?.message) status.message = s.status.message
        spans.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId || undefined,
          traceState: s.traceState || undefined,
          name: s.name,
          kind: s.kind as Span['kind'],
          startTimeUnixNano: s.start.toString(),
          endTimeUnixNano: s.end.toString(),
          attributes: expectedAttributes(s.attributes),
          events: s.events.map((e) => ({
            name: e.name,
            timeUnixNano: e.time.toString(),
            attributes: expectedAttributes(e.attributes),
          })),
          links: s.links.map((l) => ({
            traceId: l.traceId,
            spanId: l.spanId,
            traceState: l.traceState || undefined,
            attributes: expectedAttributes(l.attributes),
          })),
          status,
          resource,
          scope,
        })
      }
    }
  }
  return spans
}

// ---------------------------------------------------------------- protobuf encoding

function writeValue(w: ProtoWriter, value: GenValue): void {
  switch (value.t) {
    case 'string':
      w.stringField(1, value.v)
      return
    case 'bool':
      w.varintField(2, value.v ? 1 : 0)
      return
    case 'int':
      w.varintField(3, value.v)
      return
    case 'double':
      w.doubleField(4, value.v)
      return
    case 'array':
      w.message(5, (a) => {
        for (const item of value.v) a.message(1, (iw) => writeValue(iw, item))
      })
      return
    case 'kvlist':
      w.message(6, (l) => writeKeyValues(l, 1, value.v))
      return
    case 'bytes':
      w.bytesField(7, value.v)
      return
    case 'empty':
      return
  }
}

function writeKeyValues(w: ProtoWriter, field: number, kvs: [string, GenValue][]): void {
  for (const [key, value] of kvs) {
    w.message(field, (kv) => {
      kv.stringField(1, key)
      kv.message(2, (vw) => writeValue(vw, value))
    })
  }
}

/** Options that exercise legal but unusual protobuf: unknown fields, reordered fields. */
export interface EncodeOptions {
  /** Insert unknown fields of every wire type into every message. */
  unknownFields?: boolean
  /** Write the resource / scope after the spans. */
  resourceLast?: boolean
}

function unknowns(w: ProtoWriter, on: boolean | undefined): void {
  if (!on) return
  w.varintField(1000, 2n ** 63n + 5n)
  w.fixed64Field(1001, 42n)
  w.stringField(1002, 'unknown')
  w.fixed32Field(1003, 7)
}

/** Encodes a generated request as protobuf `ExportTraceServiceRequest`. */
export function encodeProto(request: GenResourceSpans[], options: EncodeOptions = {}): Uint8Array {
  const w = new ProtoWriter()
  for (const rs of request) {
    w.message(1, (rw) => {
      const resource = () => {
        if (rs.resource)
          rw.message(1, (r) => {
            writeKeyValues(r, 1, rs.resource!)
            r.varintField(2, 0)
            unknowns(r, options.unknownFields)
          })
      }
      if (!options.resourceLast) resource()
      unknowns(rw, options.unknownFields)
      for (const ss of rs.scopeSpans) {
        rw.message(2, (sw) => {
          const scope = () => {
            if (ss.scope)
              sw.message(1, (s) => {
                s.stringField(1, ss.scope!.name)
                if (ss.scope!.version) s.stringField(2, ss.scope!.version)
                writeKeyValues(s, 3, ss.scope!.attributes)
                unknowns(s, options.unknownFields)
              })
          }
          if (!options.resourceLast) scope()
          for (const span of ss.spans) sw.message(2, (spw) => writeSpan(spw, span, options))
          sw.stringField(3, 'https://opentelemetry.io/schemas/1.30.0')
          if (options.resourceLast) scope()
        })
      }
      rw.stringField(3, 'https://opentelemetry.io/schemas/1.30.0')
      if (options.resourceLast) resource()
    })
  }
  unknowns(w, options.unknownFields)
  return w.finish()
}

function writeSpan(w: ProtoWriter, s: GenSpan, options: EncodeOptions): void {
  w.hexField(1, s.traceId)
  w.hexField(2, s.spanId)
  if (s.traceState) w.stringField(3, s.traceState)
  if (s.parentSpanId) w.hexField(4, s.parentSpanId)
  w.stringField(5, s.name)
  if (s.kind) w.varintField(6, s.kind)
  w.fixed64Field(7, s.start)
  w.fixed64Field(8, s.end)
  writeKeyValues(w, 9, s.attributes)
  w.varintField(10, 3)
  for (const e of s.events) {
    w.message(11, (ew) => {
      ew.fixed64Field(1, e.time)
      ew.stringField(2, e.name)
      writeKeyValues(ew, 3, e.attributes)
      ew.varintField(4, 1)
      unknowns(ew, options.unknownFields)
    })
  }
  w.varintField(12, 0)
  for (const l of s.links) {
    w.message(13, (lw) => {
      lw.hexField(1, l.traceId)
      lw.hexField(2, l.spanId)
      if (l.traceState) lw.stringField(3, l.traceState)
      writeKeyValues(lw, 4, l.attributes)
      lw.varintField(5, 0)
      lw.fixed32Field(6, 0x301)
      unknowns(lw, options.unknownFields)
    })
  }
  w.varintField(14, 0)
  if (s.status) {
    w.message(15, (st) => {
      if (s.status!.message) st.stringField(2, s.status!.message)
      st.varintField(3, s.status!.code)
      unknowns(st, options.unknownFields)
    })
  }
  w.fixed32Field(16, 0x101)
  unknowns(w, options.unknownFields)
}

// ---------------------------------------------------------------- OTLP/JSON encoding

/** How ids are written in JSON: hex as the spec says, or base64 as some SDK serializers do. */
export type JsonIdStyle = 'hex' | 'HEX' | 'base64'

function jsonId(hex: string, style: JsonIdStyle): string {
  if (style === 'base64') return Buffer.from(hex, 'hex').toString('base64')
  return style === 'HEX' ? hex.toUpperCase() : hex
}

function jsonValue(value: GenValue, intsAsNumbers: boolean): unknown {
  switch (value.t) {
    case 'string':
      return { stringValue: value.v }
    case 'bool':
      return { boolValue: value.v }
    case 'int': {
      const n = Number(value.v)
      return { intValue: intsAsNumbers && Number.isSafeInteger(n) ? n : value.v.toString() }
    }
    case 'double':
      return { doubleValue: value.v }
    case 'bytes':
      return { bytesValue: Buffer.from(value.v).toString('base64') }
    case 'array':
      return { arrayValue: { values: value.v.map((v) => jsonValue(v, intsAsNumbers)) } }
    case 'kvlist':
      return { kvlistValue: { values: jsonKeyValues(value.v, intsAsNumbers) } }
    case 'empty':
      return {}
  }
}

function jsonKeyValues(kvs: [string, GenValue][], intsAsNumbers: boolean): unknown[] {
  return kvs.map(([key, value]) => ({ key, value: jsonValue(value, intsAsNumbers) }))
}

/** Encodes a generated request as OTLP/JSON text. */
export function encodeJson(
  request: GenResourceSpans[],
  ids: JsonIdStyle = 'hex',
  intsAsNumbers = false,
): string {
  return JSON.stringify({
    resourceSpans: request.map((rs) => ({
      resource: rs.resource
        ? { attributes: jsonKeyValues(rs.resource, intsAsNumbers), droppedAttributesCount: 0 }
        : undefined,
      scopeSpans: rs.scopeSpans.map((ss) => ({
        scope: ss.scope
          ? {
              name: ss.scope.name,
              version: ss.scope.version || undefined,
              attributes: jsonKeyValues(ss.scope.attributes, intsAsNumbers),
            }
          : undefined,
        spans: ss.spans.map((s) => ({
          traceId: jsonId(s.traceId, ids),
          spanId: jsonId(s.spanId, ids),
          parentSpanId: s.parentSpanId ? jsonId(s.parentSpanId, ids) : '',
          traceState: s.traceState || undefined,
          name: s.name,
          kind: s.kind || undefined,
          startTimeUnixNano: s.start.toString(),
          endTimeUnixNano: s.end.toString(),
          attributes: jsonKeyValues(s.attributes, intsAsNumbers),
          droppedAttributesCount: 0,
          events: s.events.map((e) => ({
            timeUnixNano: e.time.toString(),
            name: e.name,
            attributes: jsonKeyValues(e.attributes, intsAsNumbers),
          })),
          links: s.links.map((l) => ({
            traceId: jsonId(l.traceId, ids),
            spanId: jsonId(l.spanId, ids),
            traceState: l.traceState || undefined,
            attributes: jsonKeyValues(l.attributes, intsAsNumbers),
            flags: 257,
          })),
          status: s.status
            ? { code: s.status.code || undefined, message: s.status.message || undefined }
            : undefined,
          flags: 257,
          unknownField: { nested: [1, 2, 3] },
        })),
        schemaUrl: 'https://opentelemetry.io/schemas/1.30.0',
      })),
    })),
  })
}

/** `request` with a `padding` attribute of `bytes` characters on every span (to make spans large). */
export function padSpans(request: GenResourceSpans[], bytes: number): GenResourceSpans[] {
  const padding: [string, GenValue] = ['padding', { t: 'string', v: 'p'.repeat(bytes) }]
  return request.map((rs) => ({
    ...rs,
    scopeSpans: rs.scopeSpans.map((ss) => ({
      ...ss,
      spans: ss.spans.map((span) => ({ ...span, attributes: [...span.attributes, padding] })),
    })),
  }))
}
