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

    expect(server.requests.map((r) => r.url)).toEqual([
      '/v1/span_annotations?sync=true',
      '/graphql',
      '/v1/trace_annotations?sync=true',
    ])
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

  it("posts one trace annotation per scorer per trace: a run's score, or the mean and count of several", async () => {
    const sink = createPhoenixAnnotationSink({ url: server.baseUrl, sleep, passThreshold: 0.5 })
    const traceId = '5b8efff798038103d269b633813fc60c'
    const run = (spanId: string, score: number, scorerId = 'task-success') =>
      scoreRecordFixture({ spanId, runId: `${traceId}:${spanId}`, score, scorerId })
    const other = scoreRecordFixture({ traceId: 'AB8EFFF798038103D269B633813FC60C', score: 0.2 })
    await sink.deliver([
      run('00000000000000a1', 1),
      run('00000000000000a2', 0.4),
      other,
      run('00000000000000a1', 3, 'tool-count'),
    ])

    const graphql = server.requests.find((r) => r.url === '/graphql')!
    expect(graphql.json).toMatchObject({
      variables: { t0: traceId, t1: 'ab8efff798038103d269b633813fc60c' },
    })
    expect((graphql.json as { query: string }).query).toContain('t1: getTraceByOtelId(traceId: $t1)')
    const posted = server.requests.filter((r) => r.url === '/v1/trace_annotations?sync=true')
    expect(posted).toHaveLength(1)
    expect((posted[0]!.json as { data: unknown[] }).data).toEqual([
      {
        trace_id: traceId,
        name: 'Task success',
        annotator_kind: 'LLM',
        result: {
          score: 0.7,
          label: 'pass',
          explanation: 'mean of 2 runs: 00000000000000a1: 1, 00000000000000a2: 0.4',
        },
        metadata: {
          source: 'tracescore',
          scorer_id: 'task-success',
          count: 2,
          runs: [
            { span_id: '00000000000000a1', run_id: `${traceId}:00000000000000a1`, score: 1, label: 'pass' },
            { span_id: '00000000000000a2', run_id: `${traceId}:00000000000000a2`, score: 0.4, label: 'fail' },
          ],
        },
        identifier: 'task-success',
      },
      expect.objectContaining({
        trace_id: traceId,
        identifier: 'tool-count',
        result: expect.objectContaining({ score: 3 }),
      }),
      expect.objectContaining({
        trace_id: 'ab8efff798038103d269b633813fc60c',
        identifier: 'task-success',
        result: { score: 0.2, label: 'fail', explanation: 'Resolved the order query in 2 tool calls' },
        metadata: expect.objectContaining({ count: 1 }),
      }),
    ])
    expect(sink.stats()).toEqual({ delivered: 4, failed: 0, retries: 0, skipped: 0 })
  })

  it('merges a late run into the runs Phoenix already records for the trace', async () => {
    const traceId = '5b8efff798038103d269b633813fc60c'
    const earlier = { span_id: '00000000000000a1', run_id: `${traceId}:00000000000000a1`, score: 1 }
    server.succeedOn(
      '/graphql',
      JSON.stringify({
        data: {
          t0: {
            traceAnnotations: [
              {
                identifier: 'task-success',
                metadata: {
                  source: 'tracescore',
                  scorer_id: 'task-success',
                  runs: [earlier, { span_id: 7 }, { span_id: 'x', run_id: 'y', score: '1' }], // malformed entries: dropped
                },
              },
              // Not tracescore's (a human's annotation, or another tool's): ignored.
              { identifier: 'tool-count', metadata: { runs: [earlier] } },
              { identifier: '', metadata: {} },
            ],
          },
        },
      }),
    )
    const sink = createPhoenixAnnotationSink({ url: server.baseUrl, sleep })
    await sink.deliver([
      scoreRecordFixture({ spanId: '00000000000000a2', runId: `${traceId}:00000000000000a2`, score: 0.5 }),
      scoreRecordFixture({ scorerId: 'tool-count', scorerName: 'Tool count', score: 2 }),
    ])
    const [task, tools] = (server.requests.at(-1)!.json as { data: any[] }).data
    expect(task.result.score).toBe(0.75)
    expect(task.metadata.count).toBe(2)
    expect(task.metadata.runs.map((r: { span_id: string }) => r.span_id)).toEqual([
      '00000000000000a1',
      '00000000000000a2',
    ])
    expect(tools.metadata).toMatchObject({ count: 1, runs: [expect.objectContaining({ score: 2 })] })
  })

  it('retries a failing trace-annotation write (404 trace not stored yet, 503, a GraphQL error) without re-sending the span annotations', async () => {
    const sink = createPhoenixAnnotationSink({ url: server.baseUrl, sleep, retry: { retries: 4 } })
    // span annotations, GraphQL, trace annotations 404; GraphQL 503; GraphQL, trace annotations 503; ...
    server.answerNext(200, 200, 404, 503, 200, 503)
    await sink.deliver([scoreRecordFixture()])
    expect(server.requests.map((r) => `${r.url.split('?')[0]} ${r.status}`)).toEqual([
      '/v1/span_annotations 200',
      '/graphql 200',
      '/v1/trace_annotations 404',
      '/graphql 503',
      '/graphql 200',
      '/v1/trace_annotations 503',
      '/graphql 200',
      '/v1/trace_annotations 200',
    ])
    expect(sink.stats()).toEqual({ delivered: 1, failed: 0, retries: 3, skipped: 0 })

    server.succeedOn('/graphql', '{"errors":[{"message":"boom"}]}')
    const failing = createPhoenixAnnotationSink({ url: server.baseUrl, sleep, retry: { retries: 1 } })
    await expect(failing.deliver([scoreRecordFixture()])).rejects.toThrow(/GraphQL .* answered without data/)
    expect(failing.stats()).toEqual({ delivered: 0, failed: 1, retries: 1, skipped: 0 })
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
    const [traceAnnotation] = (server.requests[2]!.json as { data: any[] }).data
    expect(traceAnnotation.result).toEqual({ label: 'error', explanation: 'JudgeError: rate limited' })
    expect(traceAnnotation.metadata).toMatchObject({
      count: 0,
      runs: [{ error: 'JudgeError: rate limited' }],
    })
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
    expect(server.requests.map((r) => [r.url, r.status])).toEqual([
      ['/v1/span_annotations?sync=true', 404],
      ['/v1/span_annotations?sync=true', 503],
      ['/v1/span_annotations?sync=true', 200],
      ['/graphql', 200],
      ['/v1/trace_annotations?sync=true', 200],
    ])
    expect(sink.stats().retries).toBe(2)

    server.failNext(1, 422, '{"detail":"invalid"}')
    await expect(sink.deliver([scoreRecordFixture()])).rejects.toMatchObject({ attempts: 1 })
    expect(server.requests).toHaveLength(6)
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
    const spanPosts = server.requests.filter((r) => r.url.startsWith('/v1/span_annotations'))
    expect(spanPosts.map((r) => (r.json as { data: unknown[] }).data.length)).toEqual([2, 1])
  })
})
