import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { decodeOtlpJsonLines, decodeOtlpLogs } from '../../src/ingest/decode/index.ts'
import {
  encodeLogRecordsAsOtlpJson,
  encodeSpansAsOtlpJson,
} from '../../src/ingest/repartition/encode-otlp-json.ts'
import {
  AGENT,
  contentlessSpans,
  detailsEvents,
  perMessageEvents,
} from '../../src/ingest/testing/log-content-trace.ts'
import type { LogRecord } from '../../src/model/index.ts'
import { freePort, repoRoot, type ServiceProcess, startService } from '../helpers/cli.ts'
import { writeServiceConfig } from '../helpers/fault-process.ts'
import {
  createTopic,
  deleteTopics,
  testBrokers,
  testKafka,
  uniqueName,
  untilFullyCommitted,
} from '../helpers/kafka.ts'
import { type Collector, startCollector } from '../helpers/otelcol.ts'
import { until } from '../helpers/poll.ts'

// Agents whose content is only in log records export spans and logs to the OpenTelemetry
// Collector (tools/otelcol), whose kafka exporter writes them to two topics (otlp_proto, keyed by
// trace id); `tracescore run` reads both and sends its scores back to the Collector as score
// spans and as gen_ai.evaluation.result log records, which the Collector's OTLP receiver takes
// and its file exporter writes: one log record per score, on the agent span the score span is
// parented to.

const outDir = `${repoRoot}test/.tmp/collector-logs`
const spansTopic = uniqueName('e2e_logs_spans')
const logsTopic = uniqueName('e2e_logs_logs')
const groupId = spansTopic
const traceId = (i: number) => (i + 1).toString(16).padStart(32, 'c')
/** Six traces with their content in log records (both forms), two whose log records never come. */
const withLogs = [0, 1, 2, 3, 4, 5].map(traceId)
const withoutLogs = [6, 7].map(traceId)
const logsOf = (t: string, i: number): LogRecord[] => (i % 2 === 0 ? detailsEvents(t) : perMessageEvents(t))

let collector: Collector
let service: ServiceProcess
let inPort = 0

function collectorConfig(scoresPort: number): string {
  return `receivers:
  otlp/agents: { protocols: { http: { endpoint: "127.0.0.1:${inPort}" } } }
  otlp/scores: { protocols: { http: { endpoint: "127.0.0.1:${scoresPort}" } } }
processors:
  batch: { timeout: 200ms }
exporters:
  kafka:
    brokers: ${JSON.stringify(testBrokers())}
    traces: { topic: ${spansTopic}, encoding: otlp_proto }
    logs: { topic: ${logsTopic}, encoding: otlp_proto }
    partition_traces_by_id: true
    partition_logs_by_trace_id: true
  file/score-spans: { path: ${outDir}/score-spans.jsonl, format: json }
  file/score-logs: { path: ${outDir}/score-logs.jsonl, format: json }
service:
  telemetry: { metrics: { level: none }, logs: { level: warn } }
  pipelines:
    traces/agents: { receivers: [otlp/agents], processors: [batch], exporters: [kafka] }
    logs/agents: { receivers: [otlp/agents], processors: [batch], exporters: [kafka] }
    traces/scores: { receivers: [otlp/scores], exporters: [file/score-spans] }
    logs/scores: { receivers: [otlp/scores], exporters: [file/score-logs] }
`
}

const post = async (path: string, body: string) => {
  const response = await fetch(`http://127.0.0.1:${inPort}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  })
  expect(response.status, collector.output()).toBe(200)
}

const scoreSpans = () =>
  existsSync(`${outDir}/score-spans.jsonl`)
    ? decodeOtlpJsonLines(readFileSync(`${outDir}/score-spans.jsonl`, 'utf8'))
    : []
const scoreLogs = () =>
  existsSync(`${outDir}/score-logs.jsonl`)
    ? readFileSync(`${outDir}/score-logs.jsonl`, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .flatMap((line) => decodeOtlpLogs(line))
    : []

describe('agents with log-based content → Collector → Kafka (two topics) → tracescore run → Collector', () => {
  beforeAll(async () => {
    rmSync(outDir, { recursive: true, force: true })
    mkdirSync(outDir, { recursive: true })
    await createTopic(testKafka(), spansTopic, 3)
    await createTopic(testKafka(), logsTopic, 3)
    inPort = await freePort()
    const scoresPort = await freePort()
    collector = await startCollector(`collector-logs-${spansTopic}`, collectorConfig(scoresPort), [
      inPort,
      scoresPort,
    ])
    service = await startService(
      writeServiceConfig(spansTopic, {
        brokers: testBrokers(),
        topic: spansTopic,
        logsTopic,
        groupId,
        deadLetterTopic: `${spansTopic}_dlq`,
        otlpUrl: `http://127.0.0.1:${scoresPort}/v1/traces`,
        settleMs: 1000,
        scorers: '{ answered: { scorer: answeredScorer } }',
      }),
      { readyTimeoutMs: 180_000 },
    )
    // Log records first: they may reach Kafka before or after their spans; either way they join.
    await post('/v1/logs', encodeLogRecordsAsOtlpJson(withLogs.flatMap((t, i) => logsOf(t, i))))
    await post('/v1/traces', encodeSpansAsOtlpJson([...withLogs, ...withoutLogs].flatMap(contentlessSpans)))
  }, 600_000)

  afterAll(async () => {
    const exit = await service?.stop()
    await collector?.stop()
    await deleteTopics(testKafka(), [spansTopic, logsTopic, `${spansTopic}.by_trace`, `${spansTopic}_dlq`])
    expect(exit).toBe(0)
  })

  it('scores the runs whose content came in log records, and writes one evaluation log record per score span', async () => {
    await until(
      () => scoreSpans().length >= withLogs.length && scoreLogs().length >= withLogs.length,
      180_000,
      () =>
        `scores at the Collector: ${scoreSpans().length} spans, ${scoreLogs().length} log records\n${service.output().slice(-3000)}`,
    )
    await new Promise((r) => setTimeout(r, 2_000)) // room for a duplicate or a stray score
    const spans = scoreSpans()
    const logs = scoreLogs()
    console.log(`\nCollector logs e2e: ${spans.length} score spans, ${logs.length} evaluation log records`)
    // Only the runs with log-based content were scorable (answered needs the final text).
    expect(spans.map((s) => s.traceId).sort()).toEqual([...withLogs].sort())
    expect(spans.every((s) => s.parentSpanId === AGENT && s.name === 'evaluation answered')).toBe(true)
    // One log record per score span, on the very span the score span is parented to.
    expect(logs).toHaveLength(spans.length)
    expect(logs.map((l) => `${l.traceId}/${l.spanId}`).sort()).toEqual(
      spans.map((s) => `${s.traceId}/${s.parentSpanId}`).sort(),
    )
    for (const log of logs) {
      const span = spans.find((s) => s.traceId === log.traceId)!
      expect(log.eventName).toBe('gen_ai.evaluation.result')
      expect(log.attributes['gen_ai.evaluation.name']).toBe(span.attributes['gen_ai.evaluation.name'])
      expect(log.attributes['gen_ai.evaluation.score.value']).toBe(
        span.attributes['gen_ai.evaluation.score.value'],
      )
      expect(log.resource['service.name']).toBe('tracescore')
    }
  })

  it('commits both raw topics and the repartitioned one to their ends once the traces are done', async () => {
    await untilFullyCommitted(testKafka(), `${groupId}-repartition`, spansTopic, 'spans repartitioned')
    await untilFullyCommitted(testKafka(), `${groupId}-repartition-logs`, logsTopic, 'logs repartitioned')
    await untilFullyCommitted(testKafka(), groupId, `${spansTopic}.by_trace`, 'traces done')
    expect((await service.metric('tracescore_dead_letters_total')) ?? 0).toBe(0)
  })
})
