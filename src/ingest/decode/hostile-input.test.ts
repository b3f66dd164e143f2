/**
 * Hostile input for the OTLP decoder (issue 11): payloads that once took quadratic time, decoded
 * into another record's values, or were reported in protobuf terms. Speed is asserted as bounded
 * work (fields read and values copied per input byte, `decodeWork()`), never as wall time.
 */
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { describe, expect, it } from 'vitest'
import { repeatedResourceRequest } from '../../../test/helpers/hostile-inputs.ts'
import type { Span } from '../../model/span.ts'
import { decodeOtlpTraces, OtlpDecodeError } from './index.ts'
import { decodeWork } from './protobuf-reader.ts'
import { LAZY_SPAN_BYTES } from './read-span.ts'
import { errorOf } from './testing/error-of.ts'
import {
  encodeProto,
  type GenResourceSpans,
  padSpans,
  rng,
  SpanGenerator,
} from './testing/generated-spans.ts'
import { ProtoWriter } from './testing/proto-writer.ts'
import { recordSdkSpans } from './testing/sdk-spans.ts'

/** Work the decoder does for `fn`: fields read plus attribute values copied. */
function workOf(fn: () => void): number {
  const before = decodeWork()
  fn()
  return decodeWork() - before
}

/** Every lazily decoded part of the spans, so any decoding left for later happens now. */
function touchAll(spans: Span[]): void {
  for (const span of spans) {
    JSON.stringify(span, (_, v) => (v instanceof Uint8Array ? v.length : typeof v === 'bigint' ? 0 : v))
  }
}

/** A ResourceSpans whose `resource` field is repeated `repeats` times, each with the same key. */
function repeatedKey(repeats: number): Uint8Array {
  return new ProtoWriter()
    .message(1, (rs) => {
      for (let i = 0; i < repeats; i++) {
        rs.message(1, (r) =>
          r.message(1, (kv) => kv.stringField(1, 'k').message(2, (v) => v.stringField(1, `v${i}`))),
        )
      }
      rs.message(2, (ss) => ss.message(2, (s) => s.hexField(1, 'ab'.repeat(16)).hexField(2, 'cd'.repeat(8))))
    })
    .finish()
}

describe('repeated embedded messages', () => {
  it('merges ~8,000 repeated resource fields (144 KB) with work linear in the input', () => {
    const payload = repeatedResourceRequest(144 * 1024)
    expect(payload.length).toBeGreaterThan(120_000)
    let spans: Span[] = []
    const work = workOf(() => {
      spans = decodeOtlpTraces(payload)
    })
    const resource = spans[0]!.resource
    expect(Object.keys(resource)).toHaveLength(8_192)
    expect(resource.k0).toBe('v')
    expect(resource.k8191).toBe('v')
    // Each repeat is ~16 bytes and a handful of fields; copying the merged resource per repeat
    // would be 32 million values.
    expect(work).toBeLessThan(payload.length)
  })

  it('doubling the repeats at most doubles the work', () => {
    const small = workOf(() => decodeOtlpTraces(repeatedResourceRequest(72 * 1024)))
    const large = workOf(() => decodeOtlpTraces(repeatedResourceRequest(144 * 1024)))
    expect(large).toBeLessThan(small * 2.2)
  })

  it('lets the last value of a key win across repeated resources, as within one', () => {
    const [span] = decodeOtlpTraces(repeatedKey(50))
    expect(span!.resource).toEqual({ k: 'v49' })
  })

  it('merges repeated scope and status fields field by field', () => {
    const payload = new ProtoWriter()
      .message(1, (rs) =>
        rs.message(2, (ss) => {
          ss.message(1, (scope) => scope.stringField(1, 'lib').stringField(2, '1.0'))
          ss.message(1, (scope) =>
            scope.message(3, (kv) => kv.stringField(1, 'a').message(2, (v) => v.stringField(1, 'A'))),
          )
          ss.message(2, (s) => {
            s.hexField(1, 'ab'.repeat(16)).hexField(2, 'cd'.repeat(8))
            s.message(15, (st) => st.varintField(3, 2))
            s.message(15, (st) => st.stringField(2, 'boom'))
          })
        }),
      )
      .finish()
    const [span] = decodeOtlpTraces(payload)
    expect(span!.scope).toEqual({ name: 'lib', version: '1.0', attributes: { a: 'A' } })
    expect(span!.status).toEqual({ code: 2, message: 'boom' })
  })
})

describe('a caller that reuses one buffer for every record', () => {
  /** 2,000 records, each from its own service, with a bytes value and a string attribute. */
  function records(): Buffer[] {
    const gen = new SpanGenerator(rng(11))
    return Array.from({ length: 2_000 }, (_, i) => {
      const span = gen.span()
      const request: GenResourceSpans[] = [
        {
          resource: [
            ['service.name', { t: 'string', v: `service-${i}` }],
            ['service.instance', { t: 'int', v: BigInt(i % 7) }],
          ],
          scopeSpans: [
            {
              scope: undefined,
              spans: [
                {
                  ...span,
                  attributes: [
                    ['blob', { t: 'bytes', v: Uint8Array.from([i & 0xff, i >> 8, 7]) }],
                    ['record', { t: 'string', v: `record ${i}` }],
                  ],
                },
              ],
            },
          ],
        },
      ]
      return Buffer.from(encodeProto(request))
    })
  }

  it('decodes every record as from a fresh buffer (resources, bytes and attributes owned by the spans)', () => {
    const payloads = records()
    const fresh = payloads.map((p) => decodeOtlpTraces(Buffer.from(p)))
    const shared = Buffer.alloc(Math.max(...payloads.map((p) => p.length)))
    const reused = payloads.map((p) => {
      p.copy(shared)
      const spans = decodeOtlpTraces(shared.subarray(0, p.length))
      return spans
    })
    shared.fill(0x5a)
    let wrongService = 0
    for (let i = 0; i < payloads.length; i++) {
      if (reused[i]![0]!.resource['service.name'] !== `service-${i}`) wrongService++
    }
    expect(wrongService).toBe(0)
    expect(reused).toEqual(fresh)
  })
})

describe('OTLP/JSON timestamps', () => {
  const request = (time: unknown, where: 'span' | 'event' = 'span') =>
    JSON.stringify({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: 'ab'.repeat(16),
                  spanId: 'cd'.repeat(8),
                  name: 's',
                  startTimeUnixNano: where === 'span' ? time : '1',
                  endTimeUnixNano: '2',
                  events: where === 'event' ? [{ name: 'e', timeUnixNano: time }] : [],
                },
              ],
            },
          ],
        },
      ],
    })

  it('accepts the whole uint64 range, as strings and as numbers', () => {
    expect(decodeOtlpTraces(request('18446744073709551615'))[0]!.startTimeUnixNano).toBe(
      '18446744073709551615',
    )
    expect(decodeOtlpTraces(request('0'))[0]!.startTimeUnixNano).toBe('0')
    expect(decodeOtlpTraces(request('007'))[0]!.startTimeUnixNano).toBe('7')
    expect(decodeOtlpTraces(request(1_747_872_000_123_456))[0]!.startTimeUnixNano).toBe('1747872000123456')
    expect(decodeOtlpTraces(request(2 ** 63))[0]!.startTimeUnixNano).toBe('9223372036854775808')
    expect(decodeOtlpTraces(request('18446744073709551615', 'event'))[0]!.events[0]!.timeUnixNano).toBe(
      '18446744073709551615',
    )
  })

  const bad: unknown[] = [
    '18446744073709551616',
    '99999999999999999999',
    '00000000000000000000018446744073709551616',
    2 ** 64,
    1e300,
    -1,
    '-1',
    1.5,
    '1.5',
    '1e9',
    '',
    ' 1',
    '0x10',
    true,
    {},
  ]
  for (const where of ['span', 'event'] as const) {
    it(`rejects values outside uint64 or not integers (${where} time) with OtlpDecodeError`, () => {
      for (const time of bad) {
        const error = errorOf(() => decodeOtlpTraces(request(time, where)))
        expect(error.code, JSON.stringify(time)).toBe('invalid_field')
        expect(error.path).toMatch(/[tT]imeUnixNano$/)
      }
    })
  }

  it('decodes protobuf fixed64 times over the whole range', () => {
    for (const time of [0n, 1n, 2n ** 53n + 1n, 2n ** 63n, 2n ** 64n - 1n]) {
      const payload = new ProtoWriter()
        .message(1, (rs) =>
          rs.message(2, (ss) =>
            ss.message(2, (s) =>
              s.hexField(1, 'ab'.repeat(16)).hexField(2, 'cd'.repeat(8)).fixed64Field(7, time),
            ),
          ),
        )
        .finish()
      expect(decodeOtlpTraces(payload)[0]!.startTimeUnixNano).toBe(String(time))
    }
  })
})

describe('payloads that are text, not OTLP', () => {
  const encode = (text: string) => new TextEncoder().encode(text)
  const BOM = '\uFEFF'
  const json = JSON.stringify({ resourceSpans: [] })
  const cases: [string, Uint8Array][] = [
    [
      'a text file',
      encode('# Release notes\n\nThis release fixes the exporter.\nThanks to all contributors!\n'),
    ],
    ['a doubled BOM before JSON', encode(`${BOM}${BOM}${json}`)],
    ['a CSV line', encode('trace_id,span_id,name\nabc,def,GET /\n')],
    ['text with non-ASCII letters', encode('Grüße aus Köln — ünïcödé text, 日本語のテキスト\n')],
    ['a log line', encode('2026-11-30T10:00:00Z INFO started\n')],
  ]
  for (const [what, payload] of cases) {
    it(`reports ${what} as not OTLP (looks like text), in any encoding mode that tries protobuf`, () => {
      for (const encoding of [undefined, 'otlp_proto'] as const) {
        const error = errorOf(() => decodeOtlpTraces(payload, encoding))
        expect(error.code).toBe('not_otlp')
        expect(error.message).toMatch(/^not an OTLP payload \(looks like text/)
        expect(error.message).not.toMatch(/wire type|field \d/)
      }
    })
  }

  it('says OTLP/JSON read as protobuf is JSON, and which encodings read it', () => {
    for (const payload of [encode(json), encode(`${BOM}${json}`), encode(`\n ${json}`)]) {
      const error = errorOf(() => decodeOtlpTraces(payload, 'otlp_proto'))
      expect(error.code).toBe('not_otlp')
      expect(error.message).toMatch(/looks like OTLP\/JSON text.*'auto'/)
    }
  })

  it('still reports binary garbage in protobuf terms', () => {
    const error = errorOf(() => decodeOtlpTraces(Uint8Array.from([0x0b, 0x00, 0xff, 0x13])))
    expect(error.code).toBe('unsupported_wire_type')
  })
})

describe('fuzzing: only OtlpDecodeError, and work linear in the input', () => {
  const realPayload = ProtobufTraceSerializer.serializeRequest(recordSdkSpans())!

  /** Decodes and reads every span; returns the work done, or the work until the error. */
  function decodeAll(bytes: Uint8Array): number {
    return workOf(() => {
      let spans: Span[] = []
      try {
        spans = decodeOtlpTraces(bytes)
      } catch (error) {
        if (!(error instanceof OtlpDecodeError)) throw error
      }
      // Outside the try: reading what was decoded lazily must never throw (it was checked).
      touchAll(spans)
    })
  }

  it('random bytes, mutations and splices of real and generated requests', () => {
    const random = rng(21)
    const gen = new SpanGenerator(rng(22))
    // Small spans are decoded at once, large ones lazily (checked now, decoded when read): both.
    const generated = Array.from({ length: 20 }, (_, i) =>
      encodeProto(i % 2 ? padSpans(gen.request(), LAZY_SPAN_BYTES) : gen.request()),
    )
    let maxRatio = 0
    for (let i = 0; i < 4_000; i++) {
      const source = i % 3 === 0 ? realPayload : generated[i % generated.length]!
      let bytes: Uint8Array
      switch (i % 4) {
        case 0:
          bytes = Uint8Array.from({ length: 1 + Math.floor(random() * 400) }, () =>
            Math.floor(random() * 256),
          )
          break
        case 1: {
          bytes = source.slice()
          for (let k = 0; k < 1 + Math.floor(random() * 8); k++) {
            bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256)
          }
          break
        }
        case 2: {
          // A slice of one request spliced into another: valid-looking nested lengths.
          const cut = Math.floor(random() * source.length)
          const other = generated[Math.floor(random() * generated.length)]!
          const from = Math.floor(random() * other.length)
          bytes = new Uint8Array([...source.subarray(0, cut), ...other.subarray(from)])
          break
        }
        default: {
          // The same field repeated many times (repeated-message merges, duplicated keys).
          const unit = source.subarray(0, Math.min(source.length, 1 + Math.floor(random() * 64)))
          const times = 1 + Math.floor(random() * 200)
          bytes = new Uint8Array(unit.length * times)
          for (let t = 0; t < times; t++) bytes.set(unit, t * unit.length)
        }
      }
      const work = decodeAll(bytes)
      maxRatio = Math.max(maxRatio, work / (bytes.length + 16))
    }
    // Every field takes at least two bytes and is read at most three times (the two passes over a
    // message whose parts may come in any order, and once more when decoded lazily).
    expect(maxRatio).toBeLessThan(1.5)
  })

  it('large hostile payloads: work per byte does not grow with the size', () => {
    const ratios: number[] = []
    for (const kib of [36, 72, 144, 288]) {
      const payload = repeatedResourceRequest(kib * 1024)
      ratios.push(decodeAll(payload) / payload.length)
    }
    expect(Math.max(...ratios)).toBeLessThan(Math.min(...ratios) * 1.2)
  })
})
