import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { describe, expect, it } from 'vitest'
import type { Span } from '../../model/span.ts'
import { OtlpDecodeError } from './decode-error.ts'
import { decodeOtlpTraces, visitOtlpSpans } from './decode-otlp-traces.ts'
import { detectOtlpEncoding } from './otlp-encoding.ts'
import { ProtoWriter } from './testing/proto-writer.ts'
import { expectedSpan, recordSdkSpans } from './testing/sdk-spans.ts'

const sdkSpans = recordSdkSpans()
const expected = sdkSpans.map(expectedSpan)
const byId = (spans: Span[]) => new Map(spans.map((s) => [s.spanId, s]))

describe('decodeOtlpTraces on spans serialized by @opentelemetry/otlp-transformer', () => {
  const payloads = {
    otlp_proto: ProtobufTraceSerializer.serializeRequest(sdkSpans)!,
    otlp_json: JsonTraceSerializer.serializeRequest(sdkSpans)!,
  }

  for (const [encoding, payload] of Object.entries(payloads)) {
    it(`${encoding}: every span equals its SDK source field by field`, () => {
      const decoded = byId(decodeOtlpTraces(payload))
      expect(decoded.size).toBe(expected.length)
      for (const want of expected) {
        const got = decoded.get(want.spanId)
        expect(got, want.name).toEqual(want)
      }
    })
  }

  it('keeps times exact to the nanosecond beyond 2^53', () => {
    const root = decodeOtlpTraces(payloads.otlp_proto).find((s) => s.name === 'invoke_agent support')!
    expect(root.startTimeUnixNano).toBe('1747872000123456789')
    expect(root.parentSpanId).toBe('b7ad6b7169203331')
    expect(root.attributes['gen_ai.response.finish_reasons']).toEqual(['stop', 'tool_calls'])
  })

  it('gives the same spans from protobuf, JSON bytes and JSON text', () => {
    const fromProto = decodeOtlpTraces(payloads.otlp_proto, 'otlp_proto')
    const fromJson = decodeOtlpTraces(payloads.otlp_json, 'otlp_json')
    const fromText = decodeOtlpTraces(new TextDecoder().decode(payloads.otlp_json))
    expect(fromJson).toEqual(fromText)
    expect(byId(fromJson)).toEqual(byId(fromProto))
  })

  it('decodes a payload that is a view into a larger buffer (Kafka hands out pooled slices)', () => {
    const pool = Buffer.alloc(payloads.otlp_proto.length + 100, 0xff)
    pool.set(payloads.otlp_proto, 37)
    const view = pool.subarray(37, 37 + payloads.otlp_proto.length)
    expect(decodeOtlpTraces(view)).toEqual(decodeOtlpTraces(payloads.otlp_proto))
  })

  it('shares one resource object among the spans of a ResourceSpans', () => {
    const spans = decodeOtlpTraces(payloads.otlp_proto)
    expect(spans[0]!.resource).toBe(spans[1]!.resource)
  })
})

describe('structured attribute values written by @opentelemetry/otlp-transformer', () => {
  // The SDK keeps only primitive attributes, but the serializers write any AnyValue: give a recorded
  // span structured attributes by shadowing its `attributes`.
  const structured = {
    'gen_ai.input.messages': [
      { role: 'user', parts: [{ type: 'text', content: 'hi 😀' }] },
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', arguments: { city: 'Zürich', days: 3 } }] },
    ],
    'payload.bytes': Uint8Array.from([0, 1, 2, 253, 254, 255]),
    'mixed.array': ['a', 1, 2.5, true, [1, [2]], { k: 'v' }],
    'empty.map': {},
    'int.big': 2 ** 60,
    'int.negative': -(2 ** 40),
  }
  const span = Object.create(sdkSpans[0]!, { attributes: { value: structured } })

  for (const [encoding, serializer] of [
    ['otlp_proto', ProtobufTraceSerializer],
    ['otlp_json', JsonTraceSerializer],
  ] as const) {
    it(`${encoding}: decodes kvlist, array, bytes and int64 values as the JS values they came from`, () => {
      const [decoded] = decodeOtlpTraces(serializer.serializeRequest([span])!)
      expect(decoded!.attributes).toEqual({ ...structured, 'int.big': '1152921504606846976' })
      expect(decoded!.attributes['payload.bytes']).toBeInstanceOf(Uint8Array)
    })
  }
})

describe('visitOtlpSpans', () => {
  it('hands over each span with the byte size of its protobuf Span message', () => {
    const payload = ProtobufTraceSerializer.serializeRequest(sdkSpans)!
    const seen: [string, number][] = []
    visitOtlpSpans(payload, (span, bytes) => seen.push([span.spanId, bytes]))
    expect(seen.map(([id]) => id)).toEqual(decodeOtlpTraces(payload).map((s) => s.spanId))
    const total = seen.reduce((n, [, b]) => n + b, 0)
    expect(total).toBeGreaterThan(0)
    expect(total).toBeLessThan(payload.length)
    for (const [, bytes] of seen) expect(bytes).toBeGreaterThan(30)
  })

  it('visits the spans before a corrupt part, then throws; decodeOtlpTraces returns nothing', () => {
    const good = ProtobufTraceSerializer.serializeRequest(sdkSpans)!
    const bad = new Uint8Array(good.length + 3)
    bad.set(good)
    bad.set([0x0a, 0x05, 0x12], good.length)
    const seen: string[] = []
    expect(() => visitOtlpSpans(bad, (span) => seen.push(span.spanId))).toThrow(OtlpDecodeError)
    expect(seen).toHaveLength(sdkSpans.length)
    expect(() => decodeOtlpTraces(bad)).toThrow(OtlpDecodeError)
  })

  it('splits a JSON payload among its spans', () => {
    const payload = JsonTraceSerializer.serializeRequest(sdkSpans)!
    const sizes: number[] = []
    visitOtlpSpans(payload, (_span, bytes) => sizes.push(bytes))
    expect(sizes).toHaveLength(sdkSpans.length)
    expect(sizes[0]).toBe(Math.round(payload.length / sdkSpans.length))
  })
})

describe('encoding detection', () => {
  it('treats strings and bytes starting with { (after whitespace or a BOM) as JSON', () => {
    expect(detectOtlpEncoding('{}')).toBe('otlp_json')
    expect(detectOtlpEncoding(new TextEncoder().encode(' \r\n\t{"resourceSpans":[]}'))).toBe('otlp_json')
    expect(detectOtlpEncoding(Uint8Array.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))).toBe('otlp_json')
    expect(detectOtlpEncoding(Uint8Array.from([0x0a, 0x02, 0x0a, 0x00]))).toBe('otlp_proto')
    expect(detectOtlpEncoding(new Uint8Array(0))).toBe('otlp_proto')
  })

  it('decodes an empty payload as a request without spans', () => {
    expect(decodeOtlpTraces(new Uint8Array(0))).toEqual([])
    expect(decodeOtlpTraces('{}')).toEqual([])
  })

  it('decodes a protobuf request that happens to start with "\\n{" (a 123-byte ResourceSpans)', () => {
    const scopeSpans = new ProtoWriter()
      .message(2, (ss) => ss.message(2, (s) => s.hexField(1, 'ab'.repeat(16)).hexField(2, 'cd'.repeat(8))))
      .finish()
    // Pad the ResourceSpans with an unknown string field to exactly 123 bytes.
    const padding = 'p'.repeat(123 - scopeSpans.length - 3)
    const payload = new ProtoWriter().message(1, (rs) => rs.raw(scopeSpans).stringField(99, padding)).finish()
    expect([payload[0], payload[1]]).toEqual([0x0a, 0x7b])
    expect(detectOtlpEncoding(payload)).toBe('otlp_json')
    const [span] = decodeOtlpTraces(payload)
    expect(span!.spanId).toBe('cd'.repeat(8))
  })

  it("'auto' tells protobuf from JSON record by record, as omitting the encoding does", () => {
    const proto = ProtobufTraceSerializer.serializeRequest(sdkSpans)!
    const json = JsonTraceSerializer.serializeRequest(sdkSpans)!
    const withBom = Uint8Array.from([0xef, 0xbb, 0xbf, ...json])
    const want = byId(decodeOtlpTraces(proto, 'otlp_proto'))
    for (const payload of [proto, json, withBom, proto, new TextDecoder().decode(json)]) {
      expect(byId(decodeOtlpTraces(payload, 'auto'))).toEqual(want)
    }
    expect(() => decodeOtlpTraces(json, 'otlp_proto')).toThrow(OtlpDecodeError)
  })

  it('decodes JSON that starts with a newline', () => {
    expect(decodeOtlpTraces(new TextEncoder().encode('\n{"resourceSpans":[]}'))).toEqual([])
  })

  it('rejects a string as protobuf and garbage bytes detected as JSON', () => {
    expect(() => decodeOtlpTraces('abc', 'otlp_proto')).toThrow(OtlpDecodeError)
    const error = captureError(() => decodeOtlpTraces(new TextEncoder().encode('{"resourceSpans": [')))
    expect(error).toBeInstanceOf(OtlpDecodeError)
    expect(error.code).toBe('invalid_json')
  })
})

function captureError(fn: () => unknown): OtlpDecodeError {
  try {
    fn()
  } catch (error) {
    return error as OtlpDecodeError
  }
  throw new Error('expected an error')
}
