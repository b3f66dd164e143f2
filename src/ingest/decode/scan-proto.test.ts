import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { describe, expect, it } from 'vitest'
import { listFixtures, loadFixture } from '../../../test/fixtures/index.ts'
import type { Span } from '../../model/span.ts'
import { isAgentRunSpan, spanRole } from '../../transform/index.ts'
import { encodeOtlpProto, generateAgentTraffic } from '../testing/agent-traffic.ts'
import { OtlpDecodeError } from './decode-error.ts'
import { decodeOtlpProto } from './decode-proto.ts'
import { decodeWork } from './protobuf-reader.ts'
import { type ScannedSpans, scanOtlpProto } from './scan-proto.ts'
import { encodeProto, rng, SpanGenerator } from './testing/generated-spans.ts'
import { recordSdkSpans } from './testing/sdk-spans.ts'

/** Every span of a scanned record, decoded. */
const spansOf = (scanned: ScannedSpans): Span[] =>
  Array.from({ length: scanned.length }, (_, i) => scanned.span(i))

/** Scan and decode agree on `payload`: both reject it, or both accept it with the same spans. */
function expectSameAsDecode(payload: Uint8Array): 'accepted' | 'rejected' {
  let decoded: Span[] | undefined
  try {
    decoded = decodeOtlpProto(payload)
  } catch (error) {
    if (!(error instanceof OtlpDecodeError)) throw error
  }
  let scanned: ScannedSpans | undefined
  try {
    scanned = scanOtlpProto(payload)
  } catch (error) {
    if (!(error instanceof OtlpDecodeError)) throw error
  }
  expect(scanned === undefined, 'scan rejects exactly what decode rejects').toBe(decoded === undefined)
  if (scanned === undefined || decoded === undefined) return 'rejected'
  expect(spansOf(scanned)).toEqual(decoded)
  for (let i = 0; i < scanned.length; i++) {
    expect(scanned.traceId(i)).toBe(decoded[i]!.traceId)
    expect(scanned.spanId(i)).toBe(decoded[i]!.spanId)
    expect(scanned.isRoot(i)).toBe(decoded[i]!.parentSpanId === undefined)
  }
  return 'accepted'
}

describe('scanOtlpProto', () => {
  it('gives every span of 200 random requests exactly as decodeOtlpProto does, and the same ids', () => {
    const gen = new SpanGenerator(rng(11))
    let spans = 0
    for (let i = 0; i < 200; i++) {
      const payload = encodeProto(gen.request())
      expect(expectSameAsDecode(payload)).toBe('accepted')
      spans += scanOtlpProto(payload).length
    }
    expect(spans).toBeGreaterThan(500)
  })

  it('rejects exactly what the decoder rejects: every single bit flip of a real request', () => {
    const payload = ProtobufTraceSerializer.serializeRequest(recordSdkSpans())!
    const copy = payload.slice()
    let rejected = 0
    for (let i = 0; i < copy.length; i++) {
      for (let bit = 0; bit < 8; bit++) {
        copy[i]! ^= 1 << bit
        if (expectSameAsDecode(copy) === 'rejected') rejected++
        copy[i]! ^= 1 << bit
      }
    }
    expect(rejected).toBeGreaterThan(0)
  }, 120_000)

  it('rejects exactly what the decoder rejects: random mutations and truncations of generated requests', () => {
    const random = rng(12)
    const gen = new SpanGenerator(rng(13))
    const outcomes = { accepted: 0, rejected: 0 }
    for (let i = 0; i < 600; i++) {
      const bytes = encodeProto(gen.request()).slice()
      if (i % 3 === 0) {
        outcomes[expectSameAsDecode(bytes.subarray(0, Math.floor(random() * bytes.length)))]++
        continue
      }
      for (let k = 0; k < 1 + Math.floor(random() * 4); k++) {
        bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256)
      }
      outcomes[expectSameAsDecode(bytes)]++
    }
    expect(outcomes.accepted).toBeGreaterThan(0)
    expect(outcomes.rejected).toBeGreaterThan(0)
  }, 120_000)

  it('marks as candidates every fixture span that transform reads as an agent, model, tool or step span', () => {
    const fixtures = listFixtures().map((entry) => loadFixture(entry))
    let genAi = 0
    let others = 0
    for (const fixture of fixtures) {
      const scanned = scanOtlpProto(fixture.proto)
      for (let i = 0; i < scanned.length; i++) {
        const span = scanned.span(i)
        if (spanRole(span) === 'other' && !isAgentRunSpan(span)) continue
        genAi++
        expect(scanned.candidate(i), `${fixture.name} ${span.name}`).toEqual(span)
      }
      others += scanned.length
    }
    expect(genAi).toBeGreaterThan(100)
    expect(others).toBeGreaterThan(genAi)
  })

  it('decodes no span of a request without GenAI markers until one is asked for', () => {
    const spans = generateAgentTraffic({ runs: 0, plainTraces: 20 }).spans
    const payload = encodeOtlpProto(spans)
    const scanned = scanOtlpProto(payload)
    expect(scanned.length).toBe(spans.length)
    const work = decodeWork()
    for (let i = 0; i < scanned.length; i++) expect(scanned.candidate(i)).toBeUndefined()
    expect(decodeWork()).toBe(work)
    expect(spansOf(scanned)).toEqual(decodeOtlpProto(payload))
  })

  it('decodes the spans after the first candidate of a scope during the scan, with the resource and scope the decoder gives them wherever they are written', () => {
    const payload = encodeOtlpProto(generateAgentTraffic({ runs: 3 }).spans)
    const scanned = scanOtlpProto(payload)
    const work = decodeWork()
    for (let i = 1; i < scanned.length; i++) expect(scanned.candidate(i)).toBe(scanned.span(i))
    expect(decodeWork()).toBe(work) // decoded already
    expect(spansOf(scanned)).toEqual(decodeOtlpProto(payload))
    const gen = new SpanGenerator(rng(21))
    for (let i = 0; i < 100; i++) {
      const request = gen.request()
      expect(expectSameAsDecode(encodeProto(request, { resourceLast: true }))).toBe('accepted')
      expect(expectSameAsDecode(encodeProto(request, { resourceLast: true, unknownFields: true }))).toBe(
        'accepted',
      )
    }
  })

  it('keeps its spans intact when it copies its bytes out of a buffer that is then overwritten', () => {
    const payload = encodeProto(new SpanGenerator(rng(14)).request())
    const expected = decodeOtlpProto(payload)
    const buffer = Buffer.from(payload)
    const scanned = scanOtlpProto(buffer)
    scanned.own()
    buffer.fill(0)
    expect(spansOf(scanned)).toEqual(expected)
  })
})
