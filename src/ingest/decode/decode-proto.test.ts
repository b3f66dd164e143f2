import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { describe, expect, it } from 'vitest'
import type { Span } from '../../model/span.ts'
import { MAX_VALUE_DEPTH } from './attributes.ts'
import { OtlpDecodeError } from './decode-error.ts'
import { decodeOtlpProto } from './decode-proto.ts'
import { errorOf } from './testing/error-of.ts'
import {
  encodeProto,
  expectedSpans,
  type GenResourceSpans,
  type GenSpan,
  type GenValue,
  rng,
  SpanGenerator,
} from './testing/generated-spans.ts'
import { ProtoWriter } from './testing/proto-writer.ts'
import { recordSdkSpans } from './testing/sdk-spans.ts'

function oneSpan(span: Partial<GenSpan>): GenResourceSpans[] {
  const base = new SpanGenerator(rng(99)).span()
  return [{ resource: [], scopeSpans: [{ scope: undefined, spans: [{ ...base, ...span }] }] }]
}

function attributeRequest(value: GenValue): GenResourceSpans[] {
  return oneSpan({ attributes: [['v', value]], events: [], links: [] })
}

/** A request whose one attribute value is `levels` arrays inside each other, built without recursion. */
function deeplyNestedRequest(levels: number): Uint8Array {
  const varint = (n: number) => {
    const out: number[] = []
    while (n > 0x7f) {
      out.push((n & 0x7f) | 0x80)
      n >>>= 7
    }
    out.push(n)
    return out
  }
  // AnyValue{array_value: ArrayValue{values: [inner]}}, innermost AnyValue{string_value: ""}.
  const anyLengths = [2]
  for (let i = 1; i <= levels; i++) {
    const inner = anyLengths[i - 1]!
    const arrayLength = 1 + varint(inner).length + inner
    anyLengths.push(1 + varint(arrayLength).length + arrayLength)
  }
  const out: number[] = []
  for (let i = levels; i >= 1; i--) {
    const inner = anyLengths[i - 1]!
    out.push(0x2a, ...varint(1 + varint(inner).length + inner), 0x0a, ...varint(inner))
  }
  out.push(0x0a, 0x00)
  const value = Uint8Array.from(out)
  return new ProtoWriter()
    .message(1, (rs) =>
      rs.message(2, (ss) =>
        ss.message(2, (s) => {
          s.hexField(1, 'ab'.repeat(16)).hexField(2, 'cd'.repeat(8))
          s.message(9, (kv) => kv.stringField(1, 'deep').bytesField(2, value))
        }),
      ),
    )
    .finish()
}

describe('decodeOtlpProto on generated requests', () => {
  it('decodes 300 random requests covering every AnyValue kind exactly', () => {
    const gen = new SpanGenerator(rng(1))
    let spans = 0
    for (let i = 0; i < 300; i++) {
      const request = gen.request()
      const decoded = decodeOtlpProto(encodeProto(request))
      expect(decoded).toEqual(expectedSpans(request))
      spans += decoded.length
    }
    expect(spans).toBeGreaterThan(500)
  })

  it('skips unknown fields of every wire type and accepts resource/scope after the spans', () => {
    const gen = new SpanGenerator(rng(2))
    for (let i = 0; i < 100; i++) {
      const request = gen.request()
      const want = expectedSpans(request)
      expect(decodeOtlpProto(encodeProto(request, { unknownFields: true }))).toEqual(want)
      expect(decodeOtlpProto(encodeProto(request, { resourceLast: true }))).toEqual(want)
    }
  })

  it('keeps int64 extremes exact: numbers when safe, decimal strings beyond 2^53', () => {
    const cases: [bigint, number | string][] = [
      [0n, 0],
      [-1n, -1],
      [2n ** 53n - 1n, Number.MAX_SAFE_INTEGER],
      [-(2n ** 53n - 1n), Number.MIN_SAFE_INTEGER],
      [2n ** 53n, '9007199254740992'],
      [-(2n ** 53n), '-9007199254740992'],
      [2n ** 63n - 1n, '9223372036854775807'],
      [-(2n ** 63n), '-9223372036854775808'],
      [-(2n ** 32n), -4294967296],
    ]
    for (const [wire, want] of cases) {
      const [span] = decodeOtlpProto(encodeProto(attributeRequest({ t: 'int', v: wire })))
      expect(span!.attributes.v, String(wire)).toBe(want)
    }
  })

  it('decodes times 0 and 2^64-1 exactly', () => {
    const [span] = decodeOtlpProto(encodeProto(oneSpan({ start: 0n, end: 2n ** 64n - 1n })))
    expect(span!.startTimeUnixNano).toBe('0')
    expect(span!.endTimeUnixNano).toBe('18446744073709551615')
  })

  it('decodes values of 1 MB and more (string, bytes, array) intact', () => {
    const big = 'é'.repeat(300_000) + '😀'.repeat(100_000) + 'a'.repeat(400_000)
    const bytes = Uint8Array.from({ length: 1_200_000 }, (_, i) => (i * 7) & 0xff)
    const request = oneSpan({
      attributes: [
        ['big.string', { t: 'string', v: big }],
        ['big.bytes', { t: 'bytes', v: bytes }],
        [
          'big.array',
          { t: 'array', v: Array.from({ length: 50_000 }, (_, i) => ({ t: 'int', v: BigInt(i) })) },
        ],
      ],
    })
    const payload = encodeProto(request)
    expect(payload.length).toBeGreaterThan(2_000_000)
    const [span] = decodeOtlpProto(payload)
    expect(span!.attributes['big.string']).toBe(big)
    expect(span!.attributes['big.bytes']).toEqual(bytes)
    expect((span!.attributes['big.array'] as number[])[49_999]).toBe(49_999)
  })

  it('copies bytes values out of the payload', () => {
    const payload = encodeProto(attributeRequest({ t: 'bytes', v: Uint8Array.from([1, 2, 3]) }))
    const [span] = decodeOtlpProto(payload)
    payload.fill(0)
    expect(span!.attributes.v).toEqual(Uint8Array.from([1, 2, 3]))
  })

  it('decodes nested kvlist/array values and empty AnyValues', () => {
    const value: GenValue = {
      t: 'kvlist',
      v: [
        [
          'messages',
          { t: 'array', v: [{ t: 'kvlist', v: [['role', { t: 'string', v: 'user' }]] }, { t: 'empty' }] },
        ],
        ['empty.list', { t: 'array', v: [] }],
        ['empty.map', { t: 'kvlist', v: [] }],
      ],
    }
    const [span] = decodeOtlpProto(encodeProto(attributeRequest(value)))
    expect(span!.attributes.v).toEqual({
      messages: [{ role: 'user' }, null],
      'empty.list': [],
      'empty.map': {},
    })
  })

  it('decodes thousands of distinct, similar keys and values correctly on repeated decodes (string caches)', () => {
    const attributes: [string, GenValue][] = Array.from({ length: 5000 }, (_, i) => [
      `key.${String(i).padStart(5, '0')}`,
      { t: 'string', v: `value-${String(i % 977).padStart(4, '0')}-ü` },
    ])
    const payload = encodeProto(oneSpan({ attributes }))
    const want = expectedSpans(oneSpan({ attributes }))
    for (let pass = 0; pass < 3; pass++) expect(decodeOtlpProto(payload)).toEqual(want)
  })

  it('stores a "__proto__" key as an own property without touching the prototype', () => {
    const [span] = decodeOtlpProto(
      encodeProto(oneSpan({ attributes: [['__proto__', { t: 'string', v: 'x' }]] })),
    )
    expect(Object.getPrototypeOf(span!.attributes)).toBe(Object.prototype)
    expect(Object.keys(span!.attributes)).toEqual(['__proto__'])
    expect(Object.getOwnPropertyDescriptor(span!.attributes, '__proto__')!.value).toBe('x')
  })

  it('hands out one resource object for the same resource bytes in different payloads', () => {
    const resource: GenResourceSpans['resource'] = [
      ['service.name', { t: 'string', v: 'cached-service' }],
      ['host.cpu.count', { t: 'int', v: 8n }],
    ]
    const request = (): GenResourceSpans[] => [{ resource, scopeSpans: oneSpan({})[0]!.scopeSpans }]
    const [a] = decodeOtlpProto(encodeProto(request()))
    const [b] = decodeOtlpProto(encodeProto(request()))
    expect(a!.resource).toEqual({ 'service.name': 'cached-service', 'host.cpu.count': 8 })
    expect(b!.resource).toBe(a!.resource)
  })

  it('merges a repeated resource field without altering the cached first resource', () => {
    const spanMessage = (w: ProtoWriter) =>
      w.message(2, (ss) => ss.message(2, (s) => s.hexField(1, 'ab'.repeat(16)).hexField(2, 'cd'.repeat(8))))
    const resourceA = (w: ProtoWriter) =>
      w.message(1, (r) =>
        r.message(1, (kv) => kv.stringField(1, 'a').message(2, (v) => v.stringField(1, 'A'))),
      )
    const resourceB = (w: ProtoWriter) =>
      w.message(1, (r) =>
        r.message(1, (kv) => kv.stringField(1, 'b').message(2, (v) => v.stringField(1, 'B'))),
      )
    const onlyA = new ProtoWriter().message(1, (rs) => spanMessage(resourceA(rs))).finish()
    const both = new ProtoWriter().message(1, (rs) => spanMessage(resourceB(resourceA(rs)))).finish()
    const [first] = decodeOtlpProto(onlyA)
    expect(decodeOtlpProto(both)[0]!.resource).toEqual({ a: 'A', b: 'B' })
    expect(first!.resource).toEqual({ a: 'A' })
    expect(decodeOtlpProto(onlyA)[0]!.resource).toEqual({ a: 'A' })
  })

  it('treats an all-zero parent span id as a root span', () => {
    const [span] = decodeOtlpProto(encodeProto(oneSpan({ parentSpanId: '0000000000000000' })))
    expect(span!.parentSpanId).toBeUndefined()
  })

  it('maps out-of-range kind and status code to 0 and keeps negative enums from crashing', () => {
    const w = new ProtoWriter()
    w.message(1, (rs) =>
      rs.message(2, (ss) =>
        ss.message(2, (s) => {
          s.hexField(1, 'ab'.repeat(16))
          s.hexField(2, 'cd'.repeat(8))
          s.varintField(6, -1)
          s.message(15, (st) => st.varintField(3, 9))
        }),
      ),
    )
    const [span] = decodeOtlpProto(w.finish())
    expect(span!.kind).toBe(0)
    expect(span!.status).toEqual({ code: 0 })
    expect(span!.startTimeUnixNano).toBe('0')
    expect(span!.scope).toEqual({ name: '' })
    expect(span!.resource).toEqual({})
  })

  it('rejects values nested deeper than MAX_VALUE_DEPTH with too_deep, not a stack overflow', () => {
    const [span] = decodeOtlpProto(deeplyNestedRequest(MAX_VALUE_DEPTH))
    let value = span!.attributes.deep
    for (let i = 0; i < MAX_VALUE_DEPTH; i++) value = (value as unknown[])[0] as typeof value
    expect(value).toBe('')
    expect(errorOf(() => decodeOtlpProto(deeplyNestedRequest(MAX_VALUE_DEPTH + 1))).code).toBe('too_deep')
    expect(errorOf(() => decodeOtlpProto(deeplyNestedRequest(20_000))).code).toBe('too_deep')
  })
})

describe('decodeOtlpProto on malformed input', () => {
  const spanBytes = (build: (s: ProtoWriter) => void) =>
    new ProtoWriter().message(1, (rs) => rs.message(2, (ss) => ss.message(2, build))).finish()

  it('rejects ids of the wrong length and spans without ids (invalid_id)', () => {
    const valid = (s: ProtoWriter) => s.hexField(1, 'ab'.repeat(16)).hexField(2, 'cd'.repeat(8))
    expect(decodeOtlpProto(spanBytes(valid))).toHaveLength(1)
    const bad: ((s: ProtoWriter) => void)[] = [
      (s) => s.hexField(1, 'ab'.repeat(15)).hexField(2, 'cd'.repeat(8)),
      (s) => s.hexField(1, 'ab'.repeat(16)).hexField(2, 'cd'.repeat(9)),
      (s) => valid(s.hexField(4, 'cd'.repeat(4))),
      (s) => s.hexField(2, 'cd'.repeat(8)),
      (s) => s.hexField(1, 'ab'.repeat(16)),
      (s) => valid(s).message(13, (l) => l.hexField(1, 'ab'.repeat(16))),
    ]
    for (const build of bad) expect(errorOf(() => decodeOtlpProto(spanBytes(build))).code).toBe('invalid_id')
  })

  it('accepts an empty parent_span_id as a root span', () => {
    const [span] = decodeOtlpProto(
      spanBytes((s) =>
        s.hexField(1, 'ab'.repeat(16)).hexField(2, 'cd'.repeat(8)).bytesField(4, new Uint8Array(0)),
      ),
    )
    expect(span!.parentSpanId).toBeUndefined()
  })

  it('rejects groups, invalid wire types and field number 0 with their codes and offsets', () => {
    expect(errorOf(() => decodeOtlpProto(Uint8Array.from([0x0b]))).code).toBe('unsupported_wire_type')
    expect(errorOf(() => decodeOtlpProto(Uint8Array.from([0x0c]))).code).toBe('unsupported_wire_type')
    expect(errorOf(() => decodeOtlpProto(Uint8Array.from([0x0e]))).code).toBe('invalid_tag')
    const zero = errorOf(() => decodeOtlpProto(Uint8Array.from([0x0a, 0x02, 0x02, 0x00])))
    expect(zero.code).toBe('invalid_tag')
    expect(zero.offset).toBe(2)
  })

  it('rejects a length prefix larger than what is left, without allocating it', () => {
    // resource_spans with a 2^32-1 byte length, in a 7-byte payload.
    const error = errorOf(() => decodeOtlpProto(Uint8Array.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00])))
    expect(error.code).toBe('truncated')
    expect(error.offset).toBe(6)
    expect(errorOf(() => decodeOtlpProto(Uint8Array.from([0x0a, 0x80, 0x80, 0x80, 0x80, 0x10]))).code).toBe(
      'invalid_varint',
    )
  })

  it('rejects a nested length that overruns its enclosing message', () => {
    // ResourceSpans of 3 bytes whose ScopeSpans claims 5.
    expect(
      errorOf(() => decodeOtlpProto(Uint8Array.from([0x0a, 0x03, 0x12, 0x05, 0x00, 0x00, 0x00, 0x00]))).code,
    ).toBe('truncated')
  })

  it('rejects varints longer than 10 bytes', () => {
    const bytes = [0x0a, 0x0d, 0x08, ...new Array(11).fill(0xff), 0x01]
    expect(errorOf(() => decodeOtlpProto(Uint8Array.from(bytes))).code).toBe('invalid_varint')
  })

  const realPayload = ProtobufTraceSerializer.serializeRequest(recordSdkSpans())!
  const full = decodeOtlpProto(realPayload)

  it('truncated at every byte offset: a prefix of the spans or OtlpDecodeError', () => {
    let errors = 0
    for (let cut = 0; cut < realPayload.length; cut++) {
      try {
        const spans = decodeOtlpProto(realPayload.subarray(0, cut))
        expect(full.slice(0, spans.length)).toEqual(spans)
        expect(spans.length).toBeLessThan(full.length)
      } catch (error) {
        expect(error).toBeInstanceOf(OtlpDecodeError)
        errors++
      }
    }
    expect(errors).toBeGreaterThan(realPayload.length * 0.9)
  })

  it('every single bit flip: a well-formed decode or OtlpDecodeError', () => {
    const copy = realPayload.slice()
    let errors = 0
    for (let i = 0; i < copy.length; i++) {
      for (let bit = 0; bit < 8; bit++) {
        copy[i]! ^= 1 << bit
        try {
          for (const span of decodeOtlpProto(copy)) expectWellFormed(span)
        } catch (error) {
          if (!(error instanceof OtlpDecodeError)) throw error
          errors++
        }
        copy[i]! ^= 1 << bit
      }
    }
    expect(errors).toBeGreaterThan(0)
    expect(decodeOtlpProto(copy)).toEqual(full)
  }, 60_000)

  it('random bytes and random mutations: a well-formed decode or OtlpDecodeError', () => {
    const random = rng(3)
    for (let i = 0; i < 3000; i++) {
      let bytes: Uint8Array
      if (i % 2 === 0) {
        bytes = Uint8Array.from({ length: Math.floor(random() * 200) }, () => Math.floor(random() * 256))
      } else {
        bytes = realPayload.slice()
        for (let k = 0; k < 1 + Math.floor(random() * 8); k++) {
          bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256)
        }
      }
      try {
        for (const span of decodeOtlpProto(bytes)) expectWellFormed(span)
      } catch (error) {
        if (!(error instanceof OtlpDecodeError)) throw error
      }
    }
  })
})

/** Cheap shape check (called thousands of times): throws on the first violation. */
function expectWellFormed(span: Span): void {
  const ok =
    /^[0-9a-f]{32}$/.test(span.traceId) &&
    /^[0-9a-f]{16}$/.test(span.spanId) &&
    (span.parentSpanId === undefined || /^[0-9a-f]{16}$/.test(span.parentSpanId)) &&
    /^(0|[1-9][0-9]*)$/.test(span.startTimeUnixNano) &&
    /^(0|[1-9][0-9]*)$/.test(span.endTimeUnixNano) &&
    span.kind >= 0 &&
    span.kind <= 5 &&
    span.status.code >= 0 &&
    span.status.code <= 2 &&
    typeof span.name === 'string'
  if (!ok) expect.fail(`malformed span ${JSON.stringify(span).slice(0, 300)}`)
  // Reads what a large span decodes lazily: that must not throw either (it was checked when decoded).
  JSON.stringify([span.attributes, span.events, span.links], (_, v) =>
    v instanceof Uint8Array ? v.length : v,
  )
}
