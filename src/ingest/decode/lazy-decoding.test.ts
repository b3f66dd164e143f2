/**
 * Lazy decoding of protobuf spans: a large span keeps its attributes (and its events' and links')
 * as owned bytes until first read, behind a view that behaves as the plain object it decodes to.
 */
import { inspect, types } from 'node:util'
import { describe, expect, it } from 'vitest'
import type { Span } from '../../model/span.ts'
import { estimateSpanBytes } from '../estimate-span-bytes.ts'
import { OtlpDecodeError } from './decode-error.ts'
import { decodeOtlpJson } from './decode-json.ts'
import { decodeOtlpProto } from './decode-proto.ts'
import { plainAttributes, undecodedAttributesBytes } from './lazy-attributes.ts'
import { decodeWork } from './protobuf-reader.ts'
import { LAZY_SPAN_BYTES } from './read-span.ts'
import { errorOf } from './testing/error-of.ts'
import {
  encodeJson,
  encodeProto,
  expectedSpans,
  type GenResourceSpans,
  type GenSpan,
  type GenValue,
  padSpans,
  rng,
  SpanGenerator,
} from './testing/generated-spans.ts'
import { ProtoWriter } from './testing/proto-writer.ts'

const big = 'x'.repeat(LAZY_SPAN_BYTES)

/** A request with one span holding a role key, big and structured values, an event and a link. */
function request(): GenResourceSpans[] {
  const base = new SpanGenerator(rng(5)).span()
  const span: GenSpan = {
    ...base,
    attributes: [
      ['first', { t: 'string', v: 'one' }],
      ['gen_ai.operation.name', { t: 'string', v: 'chat' }],
      ['gen_ai.input.messages', { t: 'string', v: big }],
      [
        'nested',
        {
          t: 'kvlist',
          v: [
            [
              'list',
              {
                t: 'array',
                v: [
                  { t: 'int', v: 7n },
                  { t: 'bytes', v: Uint8Array.from([1, 2]) },
                ],
              },
            ],
          ],
        },
      ],
      ['last', { t: 'double', v: 0.5 }],
    ],
    events: [{ name: 'gen_ai.choice', time: 5n, attributes: [['index', { t: 'int', v: 0n }]] }],
    links: [
      {
        traceId: 'ef'.repeat(16),
        spanId: '12'.repeat(8),
        traceState: '',
        attributes: [['why', { t: 'string', v: 'retry' }]],
      },
    ],
  }
  return [
    {
      resource: [['service.name', { t: 'string', v: 's' }]],
      scopeSpans: [{ scope: undefined, spans: [span] }],
    },
  ]
}

const decodeOne = () => decodeOtlpProto(encodeProto(request()))[0]!

describe('lazily decoded spans', () => {
  it('decode to exactly what an eager decode gives, once read', () => {
    expect(decodeOtlpProto(encodeProto(request()))).toEqual(expectedSpans(request()))
    expect(decodeOtlpProto(encodeProto(request()))).toEqual(decodeOtlpJson(encodeJson(request())))
  })

  it('answer role keys without decoding the rest', () => {
    const span = decodeOne()
    expect(undecodedAttributesBytes(span.attributes)).toBeGreaterThan(LAZY_SPAN_BYTES)
    const work = decodeWork()
    expect(span.attributes['gen_ai.operation.name']).toBe('chat')
    expect('gen_ai.operation.name' in span.attributes).toBe(true)
    expect(span.attributes['mastra.span.type']).toBeUndefined()
    expect('openinference.span.kind' in span.attributes).toBe(false)
    expect(Object.hasOwn(span.attributes, 'gen_ai.operation.name')).toBe(true)
    expect(Object.hasOwn(span.attributes, 'traceloop.span.kind')).toBe(false)
    expect(span.events[0]!.name).toBe('gen_ai.choice')
    expect(span.links[0]!.spanId).toBe('12'.repeat(8))
    expect(estimateSpanBytes(span)).toBeGreaterThan(LAZY_SPAN_BYTES)
    expect(decodeWork()).toBe(work)
    expect(undecodedAttributesBytes(span.attributes)).toBeDefined()
    expect(undecodedAttributesBytes(span.events[0]!.attributes)).toBeDefined()
  })

  it('decode all on the first other read, in wire order, and become plain objects on the span', () => {
    const span = decodeOne()
    const view = span.attributes
    expect(types.isProxy(view)).toBe(true)
    expect(view.last).toBe(0.5)
    expect(Object.keys(view)).toEqual([
      'first',
      'gen_ai.operation.name',
      'gen_ai.input.messages',
      'nested',
      'last',
    ])
    expect(types.isProxy(span.attributes)).toBe(false)
    expect(Object.getPrototypeOf(span.attributes)).toBe(Object.prototype)
    expect(undecodedAttributesBytes(span.attributes)).toBeUndefined()
    // The view handed out earlier reads and writes the same object.
    view.added = 1
    expect(span.attributes.added).toBe(1)
    expect(span.events[0]!.attributes).toEqual({ index: 0 })
    expect(types.isProxy(span.events[0]!.attributes)).toBe(false)
    expect(span.links[0]!.attributes).toEqual({ why: 'retry' })
  })

  it('give their plain object to code that enumerates them, decoded once, also through a kept view', () => {
    const span = decodeOne()
    const view = span.attributes
    const work = decodeWork()
    const plain = plainAttributes(view)
    expect(types.isProxy(plain)).toBe(false)
    expect(decodeWork()).toBeGreaterThan(work)
    expect(Object.keys(plain)).toEqual([
      'first',
      'gen_ai.operation.name',
      'gen_ai.input.messages',
      'nested',
      'last',
    ])
    expect(span.attributes).toBe(plain)
    // The view kept from before the decode: the same object, not decoded again.
    const after = decodeWork()
    expect(plainAttributes(view)).toBe(plain)
    expect(decodeWork()).toBe(after)
    expect(undecodedAttributesBytes(view)).toBeUndefined()
    // A plain object (eagerly decoded, or built by hand) is its own plain object.
    const own = { a: 1 }
    expect(plainAttributes(own)).toBe(own)
  })

  it('behave as plain objects for every way of reading them', () => {
    const read: ((a: Record<string, unknown>) => unknown)[] = [
      (a) => Object.entries(a),
      (a) => JSON.stringify(a),
      (a) => ({ ...a }),
      (a) => Object.getOwnPropertyDescriptor(a, 'first')?.value,
      (a) => 'nested' in a,
      (a) => Object.hasOwn(a, 'last'),
      (a) => Object.getPrototypeOf(a) === Object.prototype,
      (a) => {
        const keys: string[] = []
        for (const key in a) keys.push(key)
        return keys
      },
    ]
    for (const fn of read) {
      const lazy = decodeOne().attributes
      const plain = decodeOtlpJson(encodeJson(request()))[0]!.attributes
      expect(fn(lazy)).toEqual(fn(plain))
    }
  })

  it("hold keys named like the view's own state, or like Object.prototype members, as plain data", () => {
    const keys = [
      'src',
      'decoded',
      'owner',
      'roles',
      'constructor',
      'toString',
      '__proto__',
      'hasOwnProperty',
    ]
    const base = request()
    const span = { ...base[0]!.scopeSpans[0]!.spans[0]! }
    span.attributes = [
      ...span.attributes,
      ...keys.map((k, i): [string, GenValue] => [k, { t: 'int', v: BigInt(i) }]),
    ]
    const req: GenResourceSpans[] = [{ ...base[0]!, scopeSpans: [{ scope: undefined, spans: [span] }] }]
    const [lazy] = decodeOtlpProto(encodeProto(req))
    expect(undecodedAttributesBytes(lazy!.attributes)).toBeDefined()
    for (const [i, key] of keys.entries())
      expect(Object.getOwnPropertyDescriptor(lazy!.attributes, key)?.value).toBe(i)
    expect([lazy]).toEqual(expectedSpans(req))
  })

  it('print their attributes with console.log / util.inspect before being read', () => {
    const text = inspect(decodeOne(), { depth: 4 })
    expect(text).toContain("'gen_ai.operation.name': 'chat'")
    expect(text).toContain('last: 0.5')
  })

  it('own their bytes: a payload overwritten after decoding changes nothing', () => {
    const payload = Buffer.from(encodeProto(request()))
    const [span] = decodeOtlpProto(payload)
    payload.fill(0)
    expect([span]).toEqual(expectedSpans(request()))
  })

  it('are rejected at decode time when any value inside is malformed, not when first read', () => {
    // A span whose last attribute's AnyValue holds a truncated string.
    const payload = new ProtoWriter()
      .message(1, (rs) =>
        rs.message(2, (ss) =>
          ss.message(2, (s) => {
            s.hexField(1, 'ab'.repeat(16)).hexField(2, 'cd'.repeat(8))
            s.message(9, (kv) => kv.stringField(1, 'big').message(2, (v) => v.stringField(1, big)))
            s.message(9, (kv) => kv.stringField(1, 'bad').bytesField(2, Uint8Array.from([0x0a, 0x05, 0x61])))
          }),
        ),
      )
      .finish()
    expect(errorOf(() => decodeOtlpProto(payload)).code).toBe('truncated')
  })

  it('decode 200 random requests exactly when every span is large enough to be lazy', () => {
    const gen = new SpanGenerator(rng(7))
    let lazy = 0
    for (let i = 0; i < 200; i++) {
      const request = padSpans(gen.request(), LAZY_SPAN_BYTES)
      const decoded = decodeOtlpProto(encodeProto(request))
      lazy += decoded.filter((s) => undecodedAttributesBytes(s.attributes) !== undefined).length
      expect(decoded).toEqual(expectedSpans(request))
    }
    expect(lazy).toBeGreaterThan(300)
  })

  it('every single bit flip of a lazy span: OtlpDecodeError now, or attributes that read', () => {
    const payload = encodeProto(request())
    const copy = payload.slice()
    let errors = 0
    for (let i = 0; i < copy.length; i++) {
      for (let bit = 0; bit < 8; bit++) {
        copy[i]! ^= 1 << bit
        let spans: Span[] = []
        try {
          spans = decodeOtlpProto(copy)
        } catch (error) {
          if (!(error instanceof OtlpDecodeError)) throw error
          errors++
        }
        // Outside the try: what was checked at decode time must decode when read.
        for (const span of spans) JSON.stringify([span.attributes, span.events, span.links], bytesAsLength)
        copy[i]! ^= 1 << bit
      }
    }
    expect(errors).toBeGreaterThan(100)
  }, 60_000)
})

const bytesAsLength = (_: string, v: unknown) => (v instanceof Uint8Array ? v.length : v)
