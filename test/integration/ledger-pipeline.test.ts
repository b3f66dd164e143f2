/**
 * The score ledger in the pipeline on the real broker: null-keyed input whose traces are split
 * over partitions (the entry of a run is found by an instance that reads it again, through the
 * partition of the record holding its agent span), and the start-up when the ledger topic cannot
 * be created (`ledger.onUnavailable`).
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { resolveConfig, type TracescoreConfigInput } from '../../src/config/index.ts'
import { createCollectingSink } from '../../src/demo/summary.ts'
import { decodeOtlpTraces } from '../../src/ingest/decode/index.ts'
import type { ScoreRecord } from '../../src/model/index.ts'
import { silentLogger } from '../../src/ops/logger.ts'
import { createPipeline, type Pipeline } from '../../src/pipeline.ts'
import { createScorer } from '../../src/scoring/create-scorer.ts'
import { extractAgentRuns } from '../../src/transform/index.ts'
import { listFixtures } from '../fixtures/index.ts'
import { createTopic, produce, testBrokers, testKafka, uniqueName } from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

/** A code scorer that counts its calls per run and answers a new value each time. */
function countingScorer(calls: Map<string, number>) {
  return createScorer({ id: 'counted', description: 'counts its calls', type: 'agent' }).generateScore(
    ({ run }) => {
      calls.set(run.runId!, (calls.get(run.runId!) ?? 0) + 1)
      return Math.random()
    },
  )
}

/** Recorded traffic, every request cut in two null-key records on different partitions. */
async function splitTraffic(topic: string, partitions: number) {
  const fixtures = listFixtures(['ai-sdk-7-genai']).slice(0, 6)
  const runs = fixtures.flatMap((f) =>
    extractAgentRuns(decodeOtlpTraces(readFileSync(f.protoPath), 'otlp_proto')),
  )
  const halves = fixtures.flatMap((f) => {
    const request = JSON.parse(readFileSync(f.jsonPath, 'utf8'))
    const scope = request.resourceSpans[0].scopeSpans[0]
    const cut = Math.ceil(scope.spans.length / 2)
    return [scope.spans.slice(0, cut), scope.spans.slice(cut)].map((part) => {
      const copy = structuredClone(request)
      copy.resourceSpans[0].scopeSpans = [{ ...scope, spans: part }]
      return JSON.stringify(copy)
    })
  })
  await produce(
    testKafka(),
    topic,
    halves.map((value, i) => ({ key: null, value, partition: i % partitions })),
  )
  return runs
}

const configOf = (topic: string, groupId: string, extra: TracescoreConfigInput) =>
  resolveConfig(
    {
      kafka: { brokers: testBrokers(), topic, groupId, fromBeginning: true, encoding: 'otlp_json' },
      assembly: { settleMs: 500 },
      sinks: { otlp: false },
      ...extra,
    },
    {},
  )

const byKey = (records: readonly ScoreRecord[]) =>
  new Map(records.map((r) => [`${r.traceId}/${r.spanId}/${r.scorerId}`, r]))

describe('score ledger in the pipeline', () => {
  it('a second instance reading null-keyed, split traces again delivers the recorded scores, scoring nothing', async () => {
    const topic = uniqueName('ledger-split')
    await createTopic(testKafka(), topic, 3)
    const runs = await splitTraffic(topic, 3)
    const calls = new Map<string, number>()
    const scorers = { counted: { scorer: countingScorer(calls) } }
    const first = createCollectingSink()
    let pipeline: Pipeline = createPipeline(
      configOf(topic, `${topic}-a`, { scorers, ledger: { enabled: true } }),
      { logger: silentLogger(), extraSinks: [first] },
    )
    try {
      await pipeline.start()
      await until(
        () => first.records.length >= runs.length,
        90_000,
        () => `first ${first.records.length}/${runs.length}`,
      )
      await pipeline.stop()
      // Another group reads everything again (as after losing the committed offsets).
      const second = createCollectingSink()
      pipeline = createPipeline(configOf(topic, `${topic}-b`, { scorers, ledger: { enabled: true } }), {
        logger: silentLogger(),
        extraSinks: [second],
      })
      await pipeline.start()
      await until(
        () => second.records.length >= runs.length,
        90_000,
        () => `second ${second.records.length}/${runs.length}`,
      )
      expect(
        await pipeline.metrics.registry.getSingleMetricAsString('tracescore_ledger_lookups_total'),
      ).toContain(`tracescore_ledger_lookups_total{scorer="counted",result="hit"} ${runs.length}`)
      await pipeline.stop()
      expect(byKey(second.records)).toEqual(byKey(first.records))
      expect([...calls.values()]).toEqual(runs.map(() => 1))
      // Entries went to both partitions of a split trace: more writes than runs in the ledger topic.
      const ledger = await testKafka().admin()
      await ledger.connect()
      const offsets = await ledger.fetchTopicOffsets(`${topic}.score_ledger`)
      await ledger.disconnect()
      const entries = offsets.reduce((n, o) => n + Number(o.high), 0)
      expect(entries).toBeGreaterThan(runs.length)
    } finally {
      await pipeline.stop().catch(() => {})
    }
  })

  it('a ledger topic that cannot be created stops the start-up with its name, or is done without by configuration', async () => {
    const topic = uniqueName('ledger-missing')
    await createTopic(testKafka(), topic, 1)
    const runs = await splitTraffic(topic, 1)
    const ledger = { enabled: true, topic: 'not a valid topic name!', startTimeoutMs: 2_000 }
    const calls = new Map<string, number>()
    const scorers = { counted: { scorer: countingScorer(calls) } }
    const failing = createPipeline(
      configOf(topic, `${topic}-a`, { scorers, ledger: { ...ledger, onUnavailable: 'fail' } }),
      { logger: silentLogger() },
    )
    await expect(failing.start()).rejects.toThrow(
      /score ledger topic not a valid topic name! could not be created or read: .*ledger\.onUnavailable/,
    )
    await failing.stop()
    expect(calls.size).toBe(0)

    const sink = createCollectingSink()
    const without = createPipeline(
      configOf(topic, `${topic}-b`, { scorers, ledger: { ...ledger, onUnavailable: 'score-without' } }),
      { logger: silentLogger(), extraSinks: [sink] },
    )
    try {
      await without.start()
      await until(
        () => sink.records.length >= runs.length,
        90_000,
        () => `scored ${sink.records.length}/${runs.length}`,
      )
      expect(calls.size).toBe(runs.length)
    } finally {
      await without.stop()
    }
  })
})
