import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { otlpFromEnv } from '../config/env.ts'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import { createOtlpSink } from './otlp-sink.ts'
import { SinkDeliveryError } from './retrying-delivery.ts'
import { scoreSpanId } from './score-span-id.ts'
import { type RecordingServer, startRecordingServer } from './testing/recording-server.ts'
import { scoreRecordFixture } from './testing/score-record-fixture.ts'
import { tracescoreVersion } from './tracescore-version.ts'

let server: RecordingServer
/** The thread of the sinks of the running test (every test runs on both). */
let thread: 'main' | 'worker' = 'main'
const sleeps: number[] = []
const sleep = async (ms: number) => {
  sleeps.push(ms)
}

beforeEach(async () => {
  server = await startRecordingServer()
  sleeps.length = 0
})
afterEach(() => server.close())

function jsonSink(extra: Parameters<typeof createOtlpSink>[0] = {}) {
  return createOtlpSink({
    endpoint: `${server.baseUrl}/v1/traces`,
    protocol: 'http/json',
    exportThread: thread,
    sleep,
    retry: { retries: 3, initialDelayMs: 100, jitter: 0 },
    ...extra,
  })
}

describe.each(['main', 'worker'] as const)('export on the %s thread', (exportThread) => {
  beforeEach(() => {
    thread = exportThread
  })

  describe('createOtlpSink over OTLP/JSON', () => {
    it('sends one score span per record, in the run trace, parented and linked to the agent span', async () => {
      const sink = jsonSink({ headers: { authorization: 'Bearer t0ken' } })
      const ok = scoreRecordFixture()
      const failed = scoreRecordFixture({
        scorerId: 'tool-accuracy',
        scorerName: 'Tool accuracy',
        scorerKind: 'code',
        score: undefined,
        reason: undefined,
        judge: undefined,
        error: { type: 'JudgeTimeoutError', message: 'judge did not answer in 30s' },
      })
      await sink.deliver([ok, failed])
      await sink.close()

      expect(server.requests).toHaveLength(1)
      const request = server.requests[0]!
      expect(request.url).toBe('/v1/traces')
      expect(request.headers['content-type']).toBe('application/json')
      expect(request.headers.authorization).toBe('Bearer t0ken')
      const spans = decodeOtlpTraces(request.body)
      expect(spans).toHaveLength(2)
      const [a, b] = spans as [(typeof spans)[0], (typeof spans)[0]]

      expect(a.traceId).toBe(ok.traceId)
      expect(a.spanId).toBe(scoreSpanId(ok.traceId, ok.spanId, 'task-success'))
      expect(a.parentSpanId).toBe(ok.spanId)
      expect(a.links).toEqual([
        { traceId: ok.traceId, spanId: ok.spanId, attributes: { 'opentracing.ref_type': 'child_of' } },
      ])
      expect(a.name).toBe('evaluation task-success')
      expect(a.kind).toBe(1) // OTLP SPAN_KIND_INTERNAL
      expect(a.startTimeUnixNano).toBe('1764500000123000000')
      expect(a.endTimeUnixNano).toBe('1764500000123000000')
      expect(a.status.code ?? 0).toBe(0)
      expect(a.resource['service.name']).toBe('tracescore')
      expect(a.scope).toEqual({ name: 'tracescore', version: tracescoreVersion })
      expect(a.attributes).toMatchObject({
        'gen_ai.evaluation.name': 'Task success',
        'gen_ai.evaluation.score.value': 0.82,
        'gen_ai.evaluation.explanation': 'Resolved the order query in 2 tool calls',
        'tracescore.scorer.id': 'task-success',
        'tracescore.run.id': ok.runId,
        'tracescore.agent.name': 'support-agent',
        'tracescore.judge.model': 'openai/gpt-5-mini',
        'tracescore.judge.total_tokens': 876,
        'tracescore.sampling.rate': 0.25,
      })
      expect(a.attributes['gen_ai.operation.name']).toBeUndefined()
      expect(a.events).toEqual([
        {
          name: 'gen_ai.evaluation.result',
          timeUnixNano: '1764500000123000000',
          attributes: {
            'gen_ai.evaluation.name': 'Task success',
            'gen_ai.evaluation.score.value': 0.82,
            'gen_ai.evaluation.explanation': 'Resolved the order query in 2 tool calls',
          },
        },
      ])

      expect(b.spanId).toBe(scoreSpanId(ok.traceId, ok.spanId, 'tool-accuracy'))
      expect(b.status).toMatchObject({ code: 2, message: 'judge did not answer in 30s' })
      expect(b.attributes['error.type']).toBe('JudgeTimeoutError')
      expect(b.attributes['gen_ai.evaluation.score.value']).toBeUndefined()
      expect(b.events[0]?.attributes['error.type']).toBe('JudgeTimeoutError')
      expect(sink.stats()).toEqual({ delivered: 2, failed: 0, retries: 0, skipped: 0 })
    })

    it('retries a failing backend with backoff and re-sends the same span ids', async () => {
      const sink = jsonSink()
      server.failNext(2, 500)
      await sink.deliver([scoreRecordFixture()])
      await sink.close()

      expect(server.requests.map((r) => r.status)).toEqual([500, 500, 200])
      const ids = server.requests.map((r) => decodeOtlpTraces(r.body).map((s) => s.spanId))
      expect(new Set(ids.flat()).size).toBe(1)
      expect(sleeps).toEqual([100, 200])
      expect(sink.stats()).toEqual({ delivered: 1, failed: 0, retries: 2, skipped: 0 })
    })

    it('rejects after its retry budget so the pipeline keeps the offsets', async () => {
      const sink = jsonSink({ retry: { retries: 2, initialDelayMs: 10, jitter: 0 } })
      server.failNext(10, 500)
      const delivery = sink.deliver([scoreRecordFixture(), scoreRecordFixture({ scorerId: 'other' })])
      await expect(delivery).rejects.toBeInstanceOf(SinkDeliveryError)
      await expect(delivery).rejects.toMatchObject({ sink: 'otlp', attempts: 3, records: 2 })
      await sink.close()
      expect(server.requests).toHaveLength(3)
      expect(sink.stats()).toEqual({ delivered: 0, failed: 2, retries: 2, skipped: 0 })
    })

    it('does not retry an answer that a retry cannot fix (400)', async () => {
      const sink = jsonSink()
      server.failNext(1, 400)
      await expect(sink.deliver([scoreRecordFixture()])).rejects.toMatchObject({ attempts: 1 })
      await sink.close()
      expect(server.requests).toHaveLength(1)
      expect(sleeps).toEqual([])
    })

    it('labels scores pass/fail from a configured threshold when the scorer gave no label', async () => {
      const sink = jsonSink({ passThreshold: { 'task-success': 0.9 } })
      await sink.deliver([scoreRecordFixture()])
      await sink.close()
      const [span] = decodeOtlpTraces(server.requests[0]!.body)
      expect(span?.attributes['gen_ai.evaluation.score.label']).toBe('fail')
      expect(span?.events[0]?.attributes['gen_ai.evaluation.score.label']).toBe('fail')
    })

    it('splits large deliveries into export requests of maxBatchSize spans', async () => {
      const sink = jsonSink({ maxBatchSize: 2 })
      await sink.deliver(['a', 'b', 'c', 'd', 'e'].map((scorerId) => scoreRecordFixture({ scorerId })))
      await sink.close()
      expect(server.requests.map((r) => decodeOtlpTraces(r.body).length)).toEqual([2, 2, 1])
      expect(sink.stats().delivered).toBe(5)
    })

    it('gives up at once on 415 and says which encoding to use', async () => {
      const sink = jsonSink()
      server.failNext(1, 415)
      await expect(sink.deliver([scoreRecordFixture()])).rejects.toThrow(/415.*http\/protobuf/)
      await sink.close()
      expect(server.requests).toHaveLength(1)
    })

    it('close() ends a delivery that is waiting to retry, so shutdown is not held up', async () => {
      const sink = jsonSink({ retry: { retries: 100 }, sleep: () => new Promise(() => {}) })
      server.failNext(100, 500) // 500: the exporter itself does not retry it, so only our policy does
      const delivery = sink.deliver([scoreRecordFixture()]).catch((e: unknown) => e)
      while (sink.stats().retries === 0) await new Promise((r) => setTimeout(r, 5))
      await sink.close()
      expect(await delivery).toMatchObject({
        name: 'SinkDeliveryError',
        message: /sink closed while retrying/,
      })
      expect(sink.stats()).toMatchObject({ delivered: 0, failed: 1 })
    })

    it('skips and counts records whose ids cannot name a span, sending the rest', async () => {
      const sink = jsonSink()
      await sink.deliver([
        scoreRecordFixture({ traceId: 'not-a-trace-id' }),
        scoreRecordFixture({ spanId: '0000000000000000' }),
        scoreRecordFixture(),
      ])
      await sink.close()
      expect(server.requests).toHaveLength(1)
      expect(decodeOtlpTraces(server.requests[0]!.body)).toHaveLength(1)
      expect(sink.stats()).toEqual({ delivered: 1, failed: 0, retries: 0, skipped: 2 })
    })

    it('sends nothing for an empty batch', async () => {
      const sink = jsonSink()
      await sink.deliver([])
      await sink.close()
      expect(server.requests).toHaveLength(0)
    })
  })

  describe('createOtlpSink over OTLP/protobuf', () => {
    it('is the default protocol and reads endpoint, headers and compression from OTEL_EXPORTER_OTLP_*', async () => {
      const fromEnv = otlpFromEnv(
        {},
        {
          OTEL_EXPORTER_OTLP_ENDPOINT: server.baseUrl,
          OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc%20def',
          OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'gzip',
        },
      )
      const sink = createOtlpSink({ ...fromEnv, exportThread: thread, sleep })
      const record = scoreRecordFixture()
      await sink.deliver([record])
      await sink.close()
      expect(server.requests).toHaveLength(1)
      const request = server.requests[0]!
      expect(request.url).toBe('/v1/traces')
      expect(request.headers['content-type']).toBe('application/x-protobuf')
      expect(request.headers['content-encoding']).toBe('gzip')
      expect(request.headers['x-api-key']).toBe('abc def')
      // The protobuf body carries the raw id bytes and the attribute strings.
      expect(request.body.includes(Buffer.from(record.traceId, 'hex'))).toBe(true)
      expect(
        request.body.includes(
          Buffer.from(scoreSpanId(record.traceId, record.spanId, record.scorerId), 'hex'),
        ),
      ).toBe(true)
      expect(request.body.includes(Buffer.from('gen_ai.evaluation.score.value'))).toBe(true)
    })
  })
})
