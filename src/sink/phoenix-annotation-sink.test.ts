import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { phoenixFromEnv } from '../config/env.ts'
import { createPhoenixAnnotationSink } from './phoenix-annotation-sink.ts'
import { scoreSpanId } from './score-span-id.ts'
import { type RecordingServer, startRecordingServer } from './testing/recording-server.ts'
import { scoreRecordFixture } from './testing/score-record-fixture.ts'

let server: RecordingServer
const sleep = async () => {}
beforeEach(async () => {
  server = await startRecordingServer()
  server.succeedWith(200, '{"data":[{"id":"U3BhbkFubm90YXRpb246MQ=="}]}')
})
afterEach(() => server.close())

describe('createPhoenixAnnotationSink', () => {
  it('refuses a URL with a user name or password, naming the key and hiding the password', () => {
    expect(() => createPhoenixAnnotationSink({ url: 'http://admin:hunter2@phoenix:6006' })).toThrow(
      'sinks.phoenix.url: a user name or password in the URL is not accepted (it would appear in logs and errors), got http://***@phoenix:6006',
    )
    expect(() => phoenixFromEnv({}, { PHOENIX_HOST: 'http://admin:hunter2@phoenix:6006' })).toThrow(
      /^PHOENIX_HOST: /,
    )
  })

  it('posts span annotations on the agent span, upserted by scorer id', async () => {
    const sink = createPhoenixAnnotationSink({
      url: `${server.baseUrl}/`,
      apiKey: 'px-key',
      sleep,
    })
    const llm = scoreRecordFixture({ label: 'pass' })
    const code = scoreRecordFixture({
      scorerId: 'tool-count',
      scorerName: 'Tool count',
      scorerKind: 'code',
      score: 2,
    })
    await sink.deliver([llm, code])

    expect(server.requests).toHaveLength(1)
    const request = server.requests[0]!
    expect(request.method).toBe('POST')
    expect(request.url).toBe('/v1/span_annotations?sync=true')
    expect(request.headers.authorization).toBe('Bearer px-key')
    expect(request.json).toEqual({
      data: [
        {
          span_id: 'eee19b7ec3c1b174',
          name: 'Task success',
          annotator_kind: 'LLM',
          result: { score: 0.82, label: 'pass', explanation: 'Resolved the order query in 2 tool calls' },
          metadata: {
            source: 'tracescore',
            scorer_id: 'task-success',
            run_id: llm.runId,
            score_span_id: scoreSpanId(llm.traceId, llm.spanId, 'task-success'),
            agent_name: 'support-agent',
            agent_id: 'support-agent-v2',
            sampling_rate: 0.25,
            judge: llm.judge,
          },
          identifier: 'task-success',
        },
        expect.objectContaining({ name: 'Tool count', annotator_kind: 'CODE', identifier: 'tool-count' }),
      ],
    })
    expect(sink.stats()).toEqual({ delivered: 2, failed: 0, retries: 0, skipped: 0 })
  })

  it('annotates a failed scoring with label error so a later success replaces it', async () => {
    const sink = createPhoenixAnnotationSink({ url: server.baseUrl, sleep })
    await sink.deliver([
      scoreRecordFixture({
        score: undefined,
        reason: undefined,
        error: { type: 'JudgeError', message: 'rate limited' },
      }),
    ])
    const [annotation] = (server.requests[0]!.json as { data: any[] }).data
    expect(annotation.result).toEqual({ label: 'error', explanation: 'JudgeError: rate limited' })
    expect(server.requests[0]!.headers.authorization).toBeUndefined()
  })

  it('retries 404 (agent span not ingested yet) and 503, not 422', async () => {
    const sink = createPhoenixAnnotationSink({
      url: server.baseUrl,
      sleep,
      retry: { retries: 3 },
    })
    server.failNext(1, 404, '{"detail":"Spans with IDs eee19b7ec3c1b174 not found"}')
    server.failNext(1, 503)
    await sink.deliver([scoreRecordFixture()])
    expect(server.requests.map((r) => r.status)).toEqual([404, 503, 200])
    expect(sink.stats().retries).toBe(2)

    server.failNext(1, 422, '{"detail":"invalid"}')
    await expect(sink.deliver([scoreRecordFixture()])).rejects.toMatchObject({ attempts: 1 })
    expect(server.requests).toHaveLength(4)
    expect(sink.stats()).toMatchObject({ delivered: 1, failed: 1 })
  })

  it('skips records without a valid span id instead of posting a request Phoenix must refuse', async () => {
    const sink = createPhoenixAnnotationSink({ url: server.baseUrl, sleep })
    await sink.deliver([scoreRecordFixture({ spanId: 'xyz' })])
    expect(server.requests).toHaveLength(0)
    expect(sink.stats()).toMatchObject({ delivered: 0, skipped: 1 })
  })

  it('splits large deliveries into batches', async () => {
    const sink = createPhoenixAnnotationSink({ url: server.baseUrl, sleep, batchSize: 2 })
    await sink.deliver(['a', 'b', 'c'].map((scorerId) => scoreRecordFixture({ scorerId })))
    expect(server.requests.map((r) => (r.json as { data: unknown[] }).data.length)).toEqual([2, 1])
  })
})
