import type { Attributes, AttributeValue } from '@opentelemetry/api'
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { describe, expect, it } from 'vitest'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import { seededRandom } from '../ingest/testing/agent-traffic.ts'
import type { ScoreRecord } from '../model/index.ts'
import type { PassThreshold } from './score-attributes.ts'
import { scoreSpanResource, toScoreSpan } from './score-span.ts'
import { serializeScoreSpanRequest } from './score-span-protobuf.ts'
import { doubleAttributeKeys } from './score-value-encoding.ts'
import { scoreRecordFixture } from './testing/score-record-fixture.ts'

/**
 * What the OTel serializer writes for these spans, with every whole number of a double-typed score
 * attribute (span and event attributes) as a double: the spans go to `ProtobufTraceSerializer` with
 * each such value replaced by a unique fraction (written as a double: tag 0x21 and 8 bytes), then
 * those 8 bytes are replaced by the whole number's. A double has one size, so no length changes,
 * and every other byte is the OTel serializer's. (This is what the exporter sent before the writer:
 * the OTel serializer, then `withDoubleScoresProto`; until that rewrite was deleted, a test here
 * checked that both give the same bytes on these batches.)
 */
function otelWithDoubleScores(spans: ReadableSpan[]): Uint8Array {
  const patches = new Map<number, number>()
  const withPlaceholders = (attributes: Attributes): Attributes =>
    Object.fromEntries(
      Object.entries(attributes).map(([key, value]) => {
        if (!doubleAttributeKeys.has(key) || !isWrittenAsInt(value)) return [key, value]
        const placeholder = 0.123456789 + patches.size * 2 ** -30
        // -0 is an int 0 to the OTel serializer, so it was rewritten as a double 0, not -0.
        patches.set(placeholder, value === 0 ? 0 : value)
        return [key, placeholder]
      }),
    )
  const body = ProtobufTraceSerializer.serializeRequest(
    spans.map((span) => ({
      ...span,
      attributes: withPlaceholders(span.attributes),
      events: span.events.map((event) => ({
        ...event,
        attributes: withPlaceholders(event.attributes ?? {}),
      })),
    })),
  )!
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength)
  for (let at = body.indexOf(0x21); at >= 0 && at + 9 <= body.length; at = body.indexOf(0x21, at + 1)) {
    const placeholder = view.getFloat64(at + 1, true)
    const value = patches.get(placeholder)
    if (value === undefined) continue
    view.setFloat64(at + 1, value, true)
    patches.delete(placeholder)
  }
  expect(patches.size, 'every placeholder was found').toBe(0)
  return body
}

/** A number the OTel serializer writes as `int_value`. */
const isWrittenAsInt = (value: AttributeValue | undefined): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63

const doubleBytes = (value: number) => Buffer.from(new Float64Array([value]).buffer)

/** Numbers that take every path of the encoding: whole, zero and -0, negative, 64-bit, huge, NaN, ±∞. */
const numbers = [
  0,
  -0,
  1,
  -1,
  2,
  -3,
  0.5,
  0.82,
  1e-9,
  127,
  128,
  16_383,
  16_384,
  2 ** 31,
  2 ** 32,
  2 ** 32 + 1,
  2 ** 53,
  2 ** 53 + 2,
  2 ** 63 - 1024,
  2 ** 63,
  -(2 ** 63),
  -(2 ** 40) - 7,
  1e300,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
]

/** Pieces of text: ASCII, 2-, 3- and 4-byte UTF-8, lone surrogates (written as U+FFFD), controls. */
const pieces = ['a', 'Z', ' ', 'é', 'ß', '日本', '😀', '\u{10FFFF}', '\uD800', '\uDC00', '\u0000', '\n', '"']

/** Byte lengths around the 1-, 2- and 3-byte length prefixes of a varint. */
const longLengths = [126, 127, 128, 129, 16_382, 16_383, 16_384, 16_385, 40_000]

function generator(seed: number) {
  const random = seededRandom(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  const chance = (p: number) => random() < p
  const text = (): string => {
    if (chance(0.1)) return ''
    const short = Array.from({ length: 1 + Math.floor(random() * 12) }, () => pick(pieces)).join('')
    // A long text is ASCII up to a boundary, then sometimes a multi-byte piece to step across it.
    return chance(0.02) ? 'x'.repeat(pick(longLengths)) + (chance(0.5) ? pick(pieces) : '') : short
  }
  const hex = (chars: number) =>
    Array.from({ length: chars }, () => Math.floor(random() * 16).toString(16)).join('')
  const number = () => (chance(0.3) ? (random() - 0.5) * 10 ** Math.floor(random() * 12) : pick(numbers))
  const maybe = <T>(value: () => T): T | undefined => (chance(0.3) ? undefined : value())

  const traceIds = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
    chance(0.2) ? hex(32).toUpperCase() : hex(32),
  )
  const record = (): ScoreRecord => ({
    traceId: pick(traceIds),
    spanId: chance(0.05) ? '' : hex(16),
    runId: text(),
    agentName: maybe(text),
    agentId: maybe(text),
    scorerId: chance(0.5) ? pick(['task-success', 'tool-use', 'relevance']) : text(),
    scorerName: text(),
    scorerKind: pick(['code', 'llm'] as const),
    score: maybe(number),
    label: maybe(text),
    reason: maybe(text),
    error: chance(0.2) ? { type: text(), message: text() } : undefined,
    judge: chance(0.5)
      ? {
          model: maybe(text),
          inputTokens: maybe(number),
          outputTokens: maybe(number),
          totalTokens: maybe(number),
          calls: number(),
        }
      : undefined,
    samplingRate: maybe(number),
    incomplete: maybe(() => chance(0.5)),
    // Fractional milliseconds, or any of 2^44 (one draw has 32 random bits: two make 44).
    timestampMs: chance(0.5)
      ? 1_764_500_000_000 + random() * 1e9
      : Math.floor(random() * 2 ** 32) * 2 ** 12 + Math.floor(random() * 2 ** 12),
  })
  const passThreshold = (): PassThreshold | undefined =>
    pick([undefined, 0.5, 1, number(), { 'task-success': 0.7, relevance: 1 }])
  return { random, record, passThreshold }
}

/** Two resources: the default one and one with extra attributes of every attribute type. */
const resources = [
  scoreSpanResource(),
  scoreSpanResource({
    'deployment.environment': 'prod',
    'host.cpus': 2,
    'host.load': 0.25,
    'feature.on': true,
    'team.tags': ['a', 'é', ''],
    'team.ids': [1, 2.5, -3],
    'team.flags': [true, false],
    'team.sparse': ['x', null as unknown as string, undefined as unknown as string],
    // Not a score span attribute: stays as the OTel serializer writes it (an int).
    'gen_ai.evaluation.score.value': 1,
  }),
]

/** A batch as a sink builds it (two sinks' resources mixed in, to cover several ResourceSpans). */
function randomBatch(seed: number): ReadableSpan[] {
  const { random, record, passThreshold } = generator(seed)
  const size = Math.floor(random() * 150) + 1
  const thresholds = [passThreshold(), passThreshold()]
  return Array.from({ length: size }, () => {
    const sink = random() < 0.7 ? 0 : 1
    return toScoreSpan(record(), { resource: resources[sink]!, passThreshold: thresholds[sink] })
  })
}

describe('serializeScoreSpanRequest', () => {
  it('writes the bytes of the OTel serializer, whole-number scores as doubles, for 120 random batches', () => {
    for (let seed = 1; seed <= 120; seed++) {
      const spans = randomBatch(seed)
      const ours = serializeScoreSpanRequest(spans)
      const expected = otelWithDoubleScores(spans)
      expect(Buffer.from(ours).equals(Buffer.from(expected)), `seed ${seed}`).toBe(true)
    }
  })

  it('writes the same bytes for lengths crossing the 1-, 2- and 3-byte varint boundaries', () => {
    // A reason of n bytes is on the span and on its event: it moves the string, its AnyValue and
    // KeyValue, the event, the span, the scope and the resource spans across 128 and 16,384 bytes.
    const resource = resources[0]!
    const resourceSpansLengths: number[] = []
    const reasons = [
      ...range(0, 300),
      ...range(7_500, 8_300, 3),
      ...range(16_200, 16_500),
      ...range(16_300, 16_400).map((n) => 'é'.repeat(n >> 1) + 'x'.repeat(n & 1)),
    ]
    for (const reason of reasons) {
      const text = typeof reason === 'number' ? 'r'.repeat(reason) : reason
      const spans = [1, 2].map((score) =>
        toScoreSpan(scoreRecordFixture({ score, reason: text }), { resource }),
      )
      const ours = serializeScoreSpanRequest(spans.slice(0, 1))
      expect(Buffer.from(ours).equals(Buffer.from(otelWithDoubleScores(spans.slice(0, 1))))).toBe(true)
      expect(
        Buffer.from(serializeScoreSpanRequest(spans)).equals(Buffer.from(otelWithDoubleScores(spans))),
      ).toBe(true)
      resourceSpansLengths.push(varintAt(ours, 1))
    }
    // Several spans, reasons of 0..400 characters: the spans differ in size within one request.
    for (const count of [3, 60]) {
      for (let reasonLength = 0; reasonLength <= 400; reasonLength += 7) {
        const spans = Array.from({ length: count }, (_, i) =>
          toScoreSpan(
            scoreRecordFixture({
              scorerId: `s${i}`,
              score: i % 3 === 0 ? 0.25 : i % 3,
              reason: 'r'.repeat(reasonLength + i),
            }),
            { resource },
          ),
        )
        expect(
          Buffer.from(serializeScoreSpanRequest(spans)).equals(Buffer.from(otelWithDoubleScores(spans))),
        ).toBe(true)
      }
    }
    // The sweep did cross both boundaries of the outermost length.
    expect(Math.min(...resourceSpansLengths)).toBeLessThan(2_000)
    expect(resourceSpansLengths.some((n) => n < 16_384)).toBe(true)
    expect(resourceSpansLengths.some((n) => n >= 16_384 && n < 17_000)).toBe(true)
    expect(Math.max(...resourceSpansLengths)).toBeGreaterThan(32_768)
  })

  it('writes whole-number scores as doubles on the span and its event (typed backends see one type)', () => {
    const resource = resources[0]!
    const records = [1, 0, -0, -3, 0.5].map((score) => scoreRecordFixture({ score, samplingRate: 1 }))
    const body = Buffer.from(serializeScoreSpanRequest(records.map((r) => toScoreSpan(r, { resource }))))
    const count = (needle: Buffer) => {
      let n = 0
      for (let at = body.indexOf(needle); at >= 0; at = body.indexOf(needle, at + 1)) n++
      return n
    }
    const keyValue = (key: string, anyValue: Buffer) =>
      Buffer.concat([
        Buffer.from([0x0a, key.length]),
        Buffer.from(key),
        Buffer.from([0x12, anyValue.length]),
        anyValue,
      ])
    const double = (n: number) =>
      keyValue('gen_ai.evaluation.score.value', Buffer.concat([Buffer.from([0x21]), doubleBytes(n)]))
    const int = (n: number) => keyValue('gen_ai.evaluation.score.value', Buffer.from([0x18, n]))
    expect(count(double(1))).toBe(2)
    expect(count(double(0))).toBe(4) // 0 and -0, both written as +0
    expect(count(double(-3))).toBe(2)
    expect(count(double(0.5))).toBe(2)
    expect(count(int(1)) + count(int(0))).toBe(0)
    expect(
      count(keyValue('tracescore.sampling.rate', Buffer.concat([Buffer.from([0x21]), doubleBytes(1)]))),
    ).toBe(5)
    // Whole numbers of other keys stay ints (token counts are ints by convention).
    expect(count(keyValue('tracescore.judge.calls', Buffer.from([0x18, 2])))).toBe(5)
    const spans = decodeOtlpTraces(new Uint8Array(body), 'otlp_proto')
    expect(spans.map((s) => s.attributes['gen_ai.evaluation.score.value'])).toEqual([1, 0, 0, -3, 0.5])
  })

  it('refuses an attribute value that toScoreSpan never makes (an object) instead of writing other bytes', () => {
    const span = toScoreSpan(scoreRecordFixture(), { resource: resources[0]! })
    const odd = { ...span, attributes: { ...span.attributes, nested: { a: 1 } as unknown as string } }
    expect(() => serializeScoreSpanRequest([odd])).toThrow(/unsupported type: object/)
  })
})

function range(from: number, to: number, step = 1): number[] {
  return Array.from({ length: Math.ceil((to - from) / step) }, (_, i) => from + i * step)
}

/** The varint at `at` (the length of the first ResourceSpans when `at` is 1). */
function varintAt(bytes: Uint8Array, at: number): number {
  let value = 0
  for (let shift = 0; ; shift += 7) {
    const byte = bytes[at++]!
    value += (byte & 0x7f) * 2 ** shift
    if (byte < 0x80) return value
  }
}
