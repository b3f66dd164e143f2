import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { decodeOtlpLogs } from '../ingest/decode/index.ts'
import { createOtlpLogSink, logsEndpointOf } from './otlp-log-sink.ts'
import { SinkDeliveryError } from './retrying-delivery.ts'
import { type RecordingServer, startRecordingServer } from './testing/recording-server.ts'
import { scoreRecordFixture } from './testing/score-record-fixture.ts'
import { tracescoreVersion } from './tracescore-version.ts'

let server: RecordingServer
beforeEach(async () => {
  server = await startRecordingServer()
})
afterEach(() => server.close())

const sink = (extra: Parameters<typeof createOtlpLogSink>[0] = {}) =>
  createOtlpLogSink({
    endpoint: `${server.baseUrl}/v1/traces`,
    sleep: async () => {},
    retry: { retries: 2, initialDelayMs: 1, jitter: 0 },
    ...extra,
  })

describe('createOtlpLogSink', () => {
  it('sends one gen_ai.evaluation.result log record per score to /v1/logs, on the agent span', async () => {
    const logs = sink({ headers: { authorization: 'Bearer t0ken' }, passThreshold: 0.5 })
    const ok = scoreRecordFixture()
    const failed = scoreRecordFixture({
      scorerId: 'tool-accuracy',
      scorerName: 'Tool accuracy',
      score: undefined,
      reason: undefined,
      error: { type: 'JudgeTimeoutError', message: 'judge did not answer in 30s' },
    })
    await logs.deliver([ok, failed])
    await logs.close()
    expect(server.requests).toHaveLength(1)
    const request = server.requests[0]!
    expect(request.url).toBe('/v1/logs')
    expect(request.headers.authorization).toBe('Bearer t0ken')
    const [a, b] = decodeOtlpLogs(request.body)
    expect(a).toMatchObject({
      traceId: ok.traceId,
      spanId: ok.spanId, // the agent span's own id: the record is attached to the span it judges
      eventName: 'gen_ai.evaluation.result',
      timeUnixNano: '1764500000123000000',
      severityText: 'INFO',
      resource: { 'service.name': 'tracescore' },
      scope: { name: 'tracescore', version: tracescoreVersion },
    })
    expect(a!.attributes).toMatchObject({
      'gen_ai.evaluation.name': 'Task success',
      'gen_ai.evaluation.score.value': 0.82,
      'gen_ai.evaluation.score.label': 'pass',
      'gen_ai.evaluation.explanation': 'Resolved the order query in 2 tool calls',
      'tracescore.scorer.id': 'task-success',
      'tracescore.run.id': ok.runId,
    })
    expect(a!.attributes).not.toHaveProperty('error.type')
    expect(b).toMatchObject({ traceId: failed.traceId, spanId: failed.spanId, severityText: 'WARN' })
    expect(b!.attributes).toMatchObject({
      'gen_ai.evaluation.name': 'Tool accuracy',
      'gen_ai.evaluation.explanation': 'judge did not answer in 30s',
      'error.type': 'JudgeTimeoutError',
    })
    expect(b!.attributes).not.toHaveProperty('gen_ai.evaluation.score.value')
    expect(logs.stats()).toMatchObject({ delivered: 2, failed: 0 })
  })

  it('retries a failed export and rejects when the budget is spent (the offsets then stay held)', async () => {
    const logs = sink()
    // 500: the OTel exporter's own retries (429, 502-504) leave it to the sink's.
    server.failNext(1, 500)
    await logs.deliver([scoreRecordFixture()])
    expect(logs.stats()).toMatchObject({ delivered: 1, retries: 1 })
    server.failNext(3, 500)
    await expect(logs.deliver([scoreRecordFixture()])).rejects.toBeInstanceOf(SinkDeliveryError)
    expect(logs.stats()).toMatchObject({ failed: 1 })
    await logs.close()
  })

  it('turns itself off when the backend takes no logs (404), acknowledging instead of holding offsets', async () => {
    const told: number[] = []
    const logs = sink({ onNoLogs: (status) => told.push(status) })
    server.failNext(1, 404)
    await logs.deliver([scoreRecordFixture()])
    await logs.deliver([scoreRecordFixture(), scoreRecordFixture()])
    await logs.close()
    expect(told).toEqual([404])
    expect(server.requests).toHaveLength(1)
    expect(logs.stats()).toMatchObject({ delivered: 0, failed: 1, skipped: 2 })
  })

  it('says so once when deliveries in flight together all learn that the backend takes no logs (405, Phoenix)', async () => {
    const told: number[] = []
    const logs = sink({ onNoLogs: (status) => told.push(status) })
    server.failNext(3, 405)
    await Promise.all([1, 2, 3].map(() => logs.deliver([scoreRecordFixture()])))
    await logs.deliver([scoreRecordFixture()])
    await logs.close()
    expect(told).toEqual([405])
    expect(server.requests).toHaveLength(3)
    expect(logs.stats()).toMatchObject({ delivered: 0, failed: 3, skipped: 1 })
  })

  it('derives the logs endpoint from the traces endpoint, or takes logsEndpoint', async () => {
    expect(logsEndpointOf('http://collector:4318/v1/traces')).toBe('http://collector:4318/v1/logs')
    const logs = sink({ logsEndpoint: `${server.baseUrl}/custom/logs` })
    await logs.deliver([scoreRecordFixture()])
    await logs.close()
    expect(server.requests[0]!.url).toBe('/custom/logs')
  })
})
