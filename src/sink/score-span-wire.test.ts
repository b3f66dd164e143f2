import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import { extractAgentRuns, isAgentRunSpan } from '../transform/index.ts'
import { createOtlpSink } from './otlp-sink.ts'
import { scoreSpanId } from './score-span-id.ts'
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
    const sink = createOtlpSink({ endpoint: `${server.baseUrl}/v1/traces`, env: {} })
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
      links: [expect.objectContaining({ traceId: ok.traceId, spanId: ok.spanId })],
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
    const sink = createOtlpSink({ endpoint: `${server.baseUrl}/v1/traces`, env: {} })
    await sink.deliver([scoreRecordFixture(), scoreRecordFixture({ scorerId: 'other', scorerKind: 'code' })])
    await sink.close()
    const spans = decodeOtlpTraces(new Uint8Array(server.requests[0]!.body))
    expect(spans.map(isAgentRunSpan)).toEqual([false, false])
    expect(extractAgentRuns(spans)).toEqual([])
  })
})
