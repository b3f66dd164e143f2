import { readdirSync, readFileSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { resolveConfig } from '../../src/config/index.ts'
import { createCollectingSink } from '../../src/demo/summary.ts'
import { DeadLetterHeader } from '../../src/ingest/dead-letter.ts'
import {
  encodeLogRecordsAsOtlpJson,
  encodeSpansAsOtlpJson,
} from '../../src/ingest/repartition/encode-otlp-json.ts'
import {
  contentlessSpans,
  contentOf,
  detailsEvents,
  LOG_CONTENT_TRUTH,
  perMessageEvents,
} from '../../src/ingest/testing/log-content-trace.ts'
import type { LogRecord } from '../../src/model/index.ts'
import { silentLogger } from '../../src/ops/logger.ts'
import { createPipeline } from '../../src/pipeline.ts'
import type { GroundTruth } from '../fixtures/ground-truth.ts'
import {
  createTopic,
  deleteTopics,
  produce,
  readTopic,
  testBrokers,
  testKafka,
  uniqueName,
  untilFullyCommitted,
} from '../helpers/kafka.ts'

const DETAILS = '1'.repeat(32)
const PER_MESSAGE = '2'.repeat(32)
const NO_LOGS = '3'.repeat(32)

/** A scorer that gives back, as its reason, the content of the run it was handed. */
const contentScorer = {
  id: 'content',
  run: async (run: { input: never; output: never }) => ({ score: 1, reason: JSON.stringify(contentOf(run)) }),
}

const topics: string[] = []
afterAll(() => deleteTopics(testKafka(), topics))

/** Runs the pipeline on `kafka` until it scored `runs` runs; the scores' content by trace id. */
async function scoreContent(kafka: Record<string, unknown>, runs: number) {
  const config = resolveConfig(
    {
      kafka: { brokers: testBrokers(), fromBeginning: true, encoding: 'otlp_json', ...kafka },
      assembly: { settleMs: 500 },
      scorers: { content: { scorer: contentScorer } },
      sinks: { otlp: false },
      ledger: { enabled: false },
    },
    {},
  )
  const collected = createCollectingSink()
  const pipeline = createPipeline(config, { logger: silentLogger(), extraSinks: [collected] })
  await pipeline.start()
  const deadline = Date.now() + 60_000
  while (collected.records.length < runs && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 200))
  await new Promise((r) => setTimeout(r, 1_000)) // room for a duplicate to show up
  return {
    content: new Map(collected.records.map((r) => [r.traceId, JSON.parse(r.reason!)])),
    scores: collected.records.length,
    stop: () => pipeline.stop(),
  }
}

// The Collector's Kafka exporter writes spans and log records to two topics, null keys by
// default: a trace's spans and its log records land on different partitions of both.
describe('kafka.logsTopic: log-based GenAI events beside the spans, on a real broker', () => {
  it('before: the span topic alone gives runs without system prompt or history; after: exact against the truth', async () => {
    const spansTopic = uniqueName('logs-spans')
    const logsTopic = uniqueName('logs-logs')
    const dlq = uniqueName('logs-dlq')
    topics.push(spansTopic, logsTopic, `${spansTopic}.by_trace`, dlq)
    await createTopic(testKafka(), spansTopic, 3)
    await createTopic(testKafka(), logsTopic, 3)
    const traces = [DETAILS, PER_MESSAGE, NO_LOGS]
    // Each span its own record, each on another partition.
    const spanRecords = traces
      .flatMap((t) => contentlessSpans(t))
      .map((span, i) => ({
        key: null,
        value: encodeSpansAsOtlpJson([span]),
        partition: i % 3,
      }))
    const uncorrelated: LogRecord = { ...detailsEvents(DETAILS)[0]!, traceId: '', spanId: '' }
    const logs = [...detailsEvents(DETAILS), ...perMessageEvents(PER_MESSAGE), uncorrelated]
    const logRecords = logs.map((record, i) => ({
      key: null,
      value: encodeLogRecordsAsOtlpJson([record]),
      partition: (i + 1) % 3,
    }))
    await produce(testKafka(), spansTopic, spanRecords)
    await produce(testKafka(), logsTopic, [
      ...logRecords,
      { key: null, value: '{"resourceLogs": 7}', partition: 0 },
    ])

    const before = await scoreContent({ topic: spansTopic, groupId: uniqueName('before') }, 3)
    await before.stop()
    expect(before.scores).toBe(3)
    for (const trace of traces) {
      expect(before.content.get(trace)).toMatchObject({ system: [], remembered: [], output: [] })
    }

    const groupId = uniqueName('after')
    const after = await scoreContent(
      { topic: spansTopic, logsTopic, repartition: true, groupId, deadLetterTopic: dlq },
      3,
    )
    try {
      expect(after.scores).toBe(3) // once per run: no duplicate from the two topics
      expect(after.content.get(DETAILS)).toEqual(LOG_CONTENT_TRUTH)
      expect(after.content.get(PER_MESSAGE)).toEqual(LOG_CONTENT_TRUTH)
      // Its log records never came: scored from its spans within the assembly bounds, never held.
      expect(after.content.get(NO_LOGS)).toMatchObject({ system: [], remembered: [], output: [] })
      // Both raw topics are committed to their ends, and so is the repartitioned one (the
      // traces are done); the undecodable log record went to the dead letters.
      await untilFullyCommitted(testKafka(), `${groupId}-repartition`, spansTopic, 'spans repartitioned')
      await untilFullyCommitted(testKafka(), `${groupId}-repartition-logs`, logsTopic, 'logs repartitioned')
      await untilFullyCommitted(testKafka(), groupId, `${spansTopic}.by_trace`, 'traces done')
      const dead = await readTopic(testKafka(), dlq, 1)
      expect(dead.map((r) => r.headers[DeadLetterHeader.topic])).toEqual([logsTopic])
    } finally {
      await after.stop()
    }
  })
})

// The same through a real producer's traces (scripts/fixtures/python/openai-v2-logs: the official
// OpenAI instrumentation with content EVENT_ONLY), as the Collector writes them: its protobuf
// ExportTraceServiceRequest on the span topic, its ExportLogsServiceRequest on the logs topic.
describe('kafka.logsTopic with the openai-v2-logs fixtures', () => {
  const dir = new URL('../fixtures/log-events/openai-v2-logs/', import.meta.url).pathname
  const scenarios = readdirSync(dir)
    .filter((f) => f.endsWith('.truth.json'))
    .map((f) => f.slice(0, -'.truth.json'.length))

  it('before: no system prompt, input or history; after: exact against the truth the program recorded', async () => {
    const spansTopic = uniqueName('logs-fx-spans')
    const logsTopic = uniqueName('logs-fx-logs')
    topics.push(spansTopic, logsTopic, `${spansTopic}.by_trace`)
    await createTopic(testKafka(), spansTopic, 2)
    await createTopic(testKafka(), logsTopic, 2)
    const expected = new Map<string, unknown>()
    for (const [i, scenario] of scenarios.entries()) {
      const truth = JSON.parse(readFileSync(`${dir}${scenario}.truth.json`, 'utf8')) as GroundTruth
      const run = truth.runs[0]!
      const spans = readFileSync(`${dir}${scenario}.pb`)
      const traceId = JSON.parse(readFileSync(`${dir}${scenario}.json`, 'utf8')).resourceSpans[0]
        .scopeSpans[0].spans[0].traceId as string
      expected.set(traceId, {
        system: [run.instructions],
        remembered: run.history.map((m) => [m.role, m.text]),
        input: run.input.map((m) => [m.role, m.text]),
        final: run.finalText,
      })
      await produce(testKafka(), spansTopic, [{ key: null, value: spans, partition: i % 2 }])
      const logs = readFileSync(`${dir}${scenario}.logs.pb`)
      await produce(testKafka(), logsTopic, [{ key: null, value: logs, partition: (i + 1) % 2 }])
    }
    const shape = (content: ReturnType<typeof contentOf>) => ({
      system: content.system,
      remembered: content.remembered,
      input: content.input,
      final: content.output.at(-1),
    })

    const before = await scoreContent(
      { topic: spansTopic, groupId: uniqueName('fx-before'), encoding: 'auto' },
      4,
    )
    await before.stop()
    expect(before.scores).toBe(scenarios.length)
    for (const traceId of expected.keys()) {
      expect(before.content.get(traceId)).toMatchObject({ system: [], remembered: [], input: [] })
    }
    const after = await scoreContent(
      { topic: spansTopic, logsTopic, repartition: true, groupId: uniqueName('fx-after'), encoding: 'auto' },
      4,
    )
    await after.stop()
    expect(after.scores).toBe(scenarios.length)
    for (const [traceId, truth] of expected) expect(shape(after.content.get(traceId))).toEqual(truth)
  })
})
