import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { describe, expect, it } from 'vitest'
import { listFixtures, loadFixture } from '../../../test/fixtures/index.ts'
import { nullKeyedRecords } from '../../../test/helpers/mixed-traffic.ts'
import type { Span } from '../../model/span.ts'
import { mayHoldMessages } from '../../transform/conventions/generic.ts'
import { isAgentRunSpan, isGenAiSpan, spanRole } from '../../transform/index.ts'
import { type DoorFilter, doorFilterOf } from '../sampling-door.ts'
import { encodeOtlpProto, generateAgentTraffic } from '../testing/agent-traffic.ts'
import { OtlpDecodeError } from './decode-error.ts'
import { decodeOtlpProto } from './decode-proto.ts'
import { decodeWork } from './protobuf-reader.ts'
import { ROLE_ATTRIBUTE_KEYS } from './role-attributes.ts'
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

/** A role view holds what the decoded span holds, but only the role attributes and the events' names. */
function expectRoleView(view: Span, span: Span): void {
  const { attributes, events, links, status, traceState, ...envelope } = span
  const roles = Object.fromEntries(
    Object.entries(attributes).filter(([key]) => ROLE_ATTRIBUTE_KEYS.includes(key)),
  )
  expect(view).toMatchObject(envelope)
  expect({ ...view.attributes }).toEqual(roles)
  expect(view.events.map((event) => event.name)).toEqual(events.map((event) => event.name))
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

  it("marks as candidates every fixture span transform reads as GenAI; the predicates answer each candidate's role view as the decoded span", () => {
    const fixtures = listFixtures().map((entry) => loadFixture(entry))
    let genAi = 0
    let candidates = 0
    let spans = 0
    // Spans that show GenAI activity only by a value that may hold messages (no role key says so).
    let byContent = 0
    for (const fixture of fixtures) {
      const scanned = scanOtlpProto(fixture.proto)
      for (let i = 0; i < scanned.length; i++) {
        const span = scanned.span(i)
        const view = scanned.candidate(i)
        const what = `${fixture.name} ${span.name}`
        spans++
        if (spanRole(span) !== 'other' || isAgentRunSpan(span)) genAi++
        const holdsMessages = Object.values(span.attributes).some(mayHoldMessages)
        expect(scanned.mayHoldMessages(i), what).toBe(holdsMessages)
        if (view === undefined) {
          expect(isAgentRunSpan(span) || isGenAiSpan(span), what).toBe(false)
          continue
        }
        candidates++
        if (isGenAiSpan(span) && !isGenAiSpan(view)) byContent++
        expect(isAgentRunSpan(view), what).toBe(isAgentRunSpan(span))
        // What the assembler asks: the role view's answer, or the scan's look at the values.
        expect(isGenAiSpan(view) || scanned.mayHoldMessages(i), what).toBe(isGenAiSpan(span))
        expect(spanRole(view), what).toBe(spanRole(span))
        expectRoleView(view, span)
      }
    }
    expect(genAi).toBeGreaterThan(100)
    expect(byContent).toBeGreaterThan(10)
    expect(candidates).toBeGreaterThanOrEqual(genAi)
    expect(spans).toBeGreaterThan(genAi) // spans transform reads as "other" are candidates too when they carry a role key
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

  it('gives role views exactly as decoded, and resources and scopes wherever they are written', () => {
    const gen = new SpanGenerator(rng(21))
    let views = 0
    for (let i = 0; i < 100; i++) {
      const request = gen.request()
      for (const options of [{ resourceLast: true }, { resourceLast: true, unknownFields: true }]) {
        const payload = encodeProto(request, options)
        expect(expectSameAsDecode(payload)).toBe('accepted')
        const scanned = scanOtlpProto(payload)
        for (let k = 0; k < scanned.length; k++) {
          const view = scanned.candidate(k)
          if (view === undefined) continue
          expectRoleView(view, scanned.span(k))
          views++
        }
      }
    }
    expect(views).toBeGreaterThan(20)
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

  it('passes by the spans of a trace the door rejected before on their id bytes, without asking the door again', () => {
    const spans = generateAgentTraffic({ runs: 200, seed: 4 }).spans
    const records = nullKeyedRecords(spans, { partitions: 1, spansPerRecord: 50 })
    const door = doorFilterOf({ rate: 0.1 })
    const asked = new Set<string>()
    let questions = 0
    const counting: DoorFilter = {
      ...door,
      keep: (traceId) => {
        questions++
        asked.add(traceId)
        return door.keep(traceId)
      },
    }
    const decoded = records.flatMap((record) => decodeOtlpProto(record.value))
    const kept = decoded.filter((span) => door.keep(span.traceId))
    const scanned = records.map((record) => scanOtlpProto(record.value, counting))
    expect(scanned.flatMap(spansOf)).toEqual(kept)
    expect(scanned.reduce((sum, batch) => sum + batch.passedBySpans, 0)).toBe(decoded.length - kept.length)
    const roots = decoded.filter((span) => span.parentSpanId === undefined && !door.keep(span.traceId))
    expect(scanned.reduce((sum, batch) => sum + batch.passedByTraces, 0)).toBe(roots.length)
    // Asked for every span it lets in and once per rejected trace (its first span), but when two
    // rejected traces share a slot of the door's memory and take turns in it.
    const rejectedTraces = asked.size - new Set(kept.map((span) => span.traceId)).size
    expect(questions).toBeGreaterThanOrEqual(kept.length + rejectedTraces)
    expect(questions).toBeLessThan(kept.length + rejectedTraces * 1.1)
    expect(questions * 2).toBeLessThan(decoded.length)
  })

  it('copies only the spans the sampling door let in when they are a small part of the record, all of them intact', () => {
    const spans = generateAgentTraffic({ runs: 40, seed: 3 }).spans
    const payload = encodeOtlpProto(spans)
    const door = doorFilterOf({ rate: 0.1 })
    const expected = decodeOtlpProto(payload).filter((span) => door.keep(span.traceId))
    const buffer = Buffer.from(payload)
    const scanned = scanOtlpProto(buffer, door)
    const views = Array.from({ length: scanned.length }, (_, i) => scanned.candidate(i))
    const ids = Array.from({ length: scanned.length }, (_, i) => scanned.spanId(i))
    const sizes = Array.from({ length: scanned.length }, (_, i) => scanned.encodedBytes(i))
    expect(expected.length).toBeGreaterThan(0)
    expect(expected.length * 3).toBeLessThan(spans.length)
    scanned.own()
    buffer.fill(0)
    expect(scanned.bytes.length * 3).toBeLessThan(payload.length)
    expect(spansOf(scanned)).toEqual(expected)
    expect(Array.from({ length: scanned.length }, (_, i) => scanned.candidate(i))).toEqual(views)
    expect(Array.from({ length: scanned.length }, (_, i) => scanned.spanId(i))).toEqual(ids)
    expect(Array.from({ length: scanned.length }, (_, i) => scanned.encodedBytes(i))).toEqual(sizes)
  })
})
