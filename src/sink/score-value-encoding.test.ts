import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { describe, expect, it } from 'vitest'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import { scoreSpanResource, toScoreSpan } from './score-span.ts'
import { withDoubleScoresProto } from './score-value-encoding.ts'
import { scoreRecordFixture } from './testing/score-record-fixture.ts'

const resource = scoreSpanResource()
const serialize = (records: ReturnType<typeof scoreRecordFixture>[]) =>
  ProtobufTraceSerializer.serializeRequest(records.map((r) => toScoreSpan(r, { resource })))!

/** The bytes of `AnyValue { int_value: n }` right after the score key, as the OTel serializer writes a whole number. */
const intScore = (n: number) =>
  Buffer.concat([Buffer.from('gen_ai.evaluation.score.value'), Buffer.from([0x12, 0x02, 0x18, n])])

describe('withDoubleScoresProto', () => {
  it('rewrites whole-number scores of requests of every size, lengths crossing varint boundaries, and changes nothing else', () => {
    // Reasons of 0..400 characters move the span, the scope and the request across the
    // 127/128 and 16,383/16,384 byte boundaries of their length prefixes, before and after the rewrite.
    for (const spans of [1, 3, 60]) {
      for (let reasonLength = 0; reasonLength <= 400; reasonLength += 7) {
        const records = Array.from({ length: spans }, (_, i) =>
          scoreRecordFixture({
            scorerId: `s${i}`,
            score: i % 3 === 0 ? 0.25 : i % 3,
            reason: 'r'.repeat(reasonLength + i),
          }),
        )
        const original = serialize(records)
        const rewritten = withDoubleScoresProto(original)
        expect(Buffer.from(rewritten).includes(intScore(1))).toBe(false)
        expect(Buffer.from(rewritten).includes(intScore(2))).toBe(false)
        const before = decodeOtlpTraces(original, 'otlp_proto')
        const after = decodeOtlpTraces(rewritten, 'otlp_proto')
        expect(after).toEqual(before)
        // Each whole score grew from an int (2 bytes) to a double (9), on the span and its event.
        const whole = records.filter((r) => Number.isInteger(r.score)).length
        expect(rewritten.length - original.length).toBeGreaterThanOrEqual(2 * whole * 7)
      }
    }
  })

  it('returns a request with nothing to rewrite as it is (the same bytes, no copy)', () => {
    const original = serialize([scoreRecordFixture({ score: 0.5, samplingRate: 0.5 })])
    expect(withDoubleScoresProto(original)).toBe(original)
  })
})
