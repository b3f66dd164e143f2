import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import { extractAgentRuns, isAgentRunSpan } from '../transform/index.ts'
import { createOtlpSink } from './otlp-sink.ts'
import { scoreSpanId } from './score-span-id.ts'
import { doubleAttributeKeys } from './score-value-encoding.ts'
import { type RecordingServer, startRecordingServer } from './testing/recording-server.ts'
import { scoreRecordFixture } from './testing/score-record-fixture.ts'

// The protobuf bodies the OTLP sink sends, read back with tracescore's own OTLP decoder: the wire
// format is complete, and score spans that come back through the Collector into the span topic
// are not mistaken for agent runs (no scoring of scores).

let server: RecordingServer
beforeEach(async () => {
  server = await startRecordingServer()
})
afterEach(() => server.close())

describe('score spans on the wire (OTLP/protobuf)', () => {
  it('decode to the intended span: ids, parent, link, kind, times, attributes, event, status', async () => {
    const sink = createOtlpSink({ endpoint: `${server.baseUrl}/v1/traces` })
    const ok = scoreRecordFixture({ label: 'pass' })
    const failed = scoreRecordFixture({
      scorerId: 'broken',
      error: { type: 'JudgeError', message: 'timeout' },
    })
    await sink.deliver([ok, failed])
    await sink.close()

    const spans = decodeOtlpTraces(new Uint8Array(server.requests[0]!.body), 'otlp_proto')
    expect(spans).toHaveLength(2)
    const [a, b] = spans as [(typeof spans)[0], (typeof spans)[0]]
    expect(a).toMatchObject({
      traceId: ok.traceId,
      spanId: scoreSpanId(ok.traceId, ok.spanId, ok.scorerId),
      parentSpanId: ok.spanId,
      name: 'evaluation task-success',
      kind: 1,
      startTimeUnixNano: '1764500000123000000',
      endTimeUnixNano: '1764500000123000000',
      links: [
        expect.objectContaining({
          traceId: ok.traceId,
          spanId: ok.spanId,
          // Keeps the parent reference CHILD_OF in Jaeger (its translator merges the link into it).
          attributes: { 'opentracing.ref_type': 'child_of' },
        }),
      ],
    })
    expect(a.attributes).toMatchObject({
      'gen_ai.evaluation.name': 'Task success',
      'gen_ai.evaluation.score.value': 0.82,
      'gen_ai.evaluation.score.label': 'pass',
      'tracescore.judge.input_tokens': 812,
    })
    expect(a.events.map((e) => e.name)).toEqual(['gen_ai.evaluation.result'])
    expect(a.status.code).toBe(0)
    expect(a.resource).toMatchObject({ 'service.name': 'tracescore' })
    expect(b.status).toEqual({ code: 2, message: 'timeout' })
    expect(b.attributes['error.type']).toBe('JudgeError')
  })

  it('are not agent runs when they come back through the span topic', async () => {
    const sink = createOtlpSink({ endpoint: `${server.baseUrl}/v1/traces` })
    await sink.deliver([scoreRecordFixture(), scoreRecordFixture({ scorerId: 'other', scorerKind: 'code' })])
    await sink.close()
    const spans = decodeOtlpTraces(new Uint8Array(server.requests[0]!.body))
    expect(spans.map(isAgentRunSpan)).toEqual([false, false])
    expect(extractAgentRuns(spans)).toEqual([])
  })
})

/** The protobuf bytes of `KeyValue { key, value: AnyValue { double_value | int_value } }`. */
function keyValueBytes(key: string, value: number, as: 'double' | 'int'): Buffer {
  const anyValue =
    as === 'double'
      ? Buffer.concat([Buffer.from([0x21]), Buffer.from(new Float64Array([value]).buffer)])
      : Buffer.from([0x18, value])
  const k = Buffer.from(key)
  return Buffer.concat([Buffer.from([0x0a, k.length]), k, Buffer.from([0x12, anyValue.length]), anyValue])
}

describe('score values on the wire', () => {
  // The semantic conventions type gen_ai.evaluation.score.value as a double; the OTel JS
  // transformer would write 0 and 1 as int_value, so typed backends would see two types.
  it('are doubles in protobuf, whole numbers included, on the span and on its event', async () => {
    const sink = createOtlpSink({ endpoint: `${server.baseUrl}/v1/traces` })
    await sink.deliver([
      scoreRecordFixture({ score: 1, samplingRate: 1 }),
      scoreRecordFixture({ scorerId: 'zero', score: 0 }),
      scoreRecordFixture({ scorerId: 'half', score: 0.5 }),
      scoreRecordFixture({ scorerId: 'negative', score: -3 }),
    ])
    await sink.close()
    const body = server.requests[0]!.body
    const count = (needle: Buffer) => {
      let n = 0
      for (let at = body.indexOf(needle); at >= 0; at = body.indexOf(needle, at + 1)) n++
      return n
    }
    const key = 'gen_ai.evaluation.score.value'
    // Each score is on its span and on its gen_ai.evaluation.result event.
    expect(count(keyValueBytes(key, 1, 'double'))).toBe(2)
    expect(count(keyValueBytes(key, 0, 'double'))).toBe(2)
    expect(count(keyValueBytes(key, 0.5, 'double'))).toBe(2)
    expect(count(keyValueBytes(key, -3, 'double'))).toBe(2)
    expect(count(keyValueBytes(key, 1, 'int'))).toBe(0)
    expect(count(keyValueBytes(key, 0, 'int'))).toBe(0)
    expect(count(keyValueBytes('tracescore.sampling.rate', 1, 'double'))).toBe(1)
    // Other whole numbers stay ints (token counts are ints by convention).
    expect(count(Buffer.from('tracescore.judge.calls'))).toBe(4)
    expect(body.includes(Buffer.concat([Buffer.from([0x12, 0x02, 0x18, 0x02])]))).toBe(true)
    // And the whole request still decodes to the same spans.
    const spans = decodeOtlpTraces(new Uint8Array(body), 'otlp_proto')
    expect(spans.map((s) => s.attributes['gen_ai.evaluation.score.value'])).toEqual([1, 0, 0.5, -3])
    expect(spans.map((s) => s.events[0]!.attributes['gen_ai.evaluation.score.value'])).toEqual([
      1, 0, 0.5, -3,
    ])
    expect(spans[0]!.attributes['tracescore.judge.calls']).toBe(2)
  })

  it('are doubleValue in OTLP/JSON', async () => {
    const sink = createOtlpSink({ endpoint: `${server.baseUrl}/v1/traces`, protocol: 'http/json' })
    await sink.deliver([scoreRecordFixture({ score: 1, samplingRate: 1 })])
    await sink.close()
    const span = (server.requests[0]!.json as any).resourceSpans[0].scopeSpans[0].spans[0]
    const values = (attributes: { key: string; value: unknown }[]) =>
      Object.fromEntries(
        attributes.filter((a) => doubleAttributeKeys.has(a.key)).map((a) => [a.key, a.value]),
      )
    expect(values(span.attributes)).toEqual({
      'gen_ai.evaluation.score.value': { doubleValue: 1 },
      'tracescore.sampling.rate': { doubleValue: 1 },
    })
    expect(values(span.events[0].attributes)).toEqual({ 'gen_ai.evaluation.score.value': { doubleValue: 1 } })
    const calls = span.attributes.find((a: { key: string }) => a.key === 'tracescore.judge.calls')
    expect(calls.value).toEqual({ intValue: 2 })
  })
})
