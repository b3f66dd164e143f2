/**
 * The sampling door in the pipeline on the real broker: the service passes by the traces its
 * scorers' rate rejects; `replay --rescore` at a new rate decides again, and a replay that
 * delivers the score ledger's recorded scores still finds every recorded run.
 */
import { describe, expect, it } from 'vitest'
import { resolveConfig, type TracescoreConfigInput } from '../../src/config/index.ts'
import { createCollectingSink } from '../../src/demo/summary.ts'
import { encodeOtlpProto, generateAgentTraffic } from '../../src/ingest/testing/agent-traffic.ts'
import { silentLogger } from '../../src/ops/logger.ts'
import { createPipeline, type PipelineRange } from '../../src/pipeline.ts'
import { createScorer } from '../../src/scoring/create-scorer.ts'
import { shouldSample } from '../../src/scoring/sampling.ts'
import { createTopic, endOffsets, produce, testBrokers, testKafka, uniqueName } from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

const scorer = createScorer({ id: 'counted', description: 'one per run', type: 'agent' }).generateScore(
  () => 1,
)
const scorersAt = (rate: number) => ({ counted: { scorer, sampling: { type: 'ratio' as const, rate } } })

const configOf = (topic: string, groupId: string, extra: TracescoreConfigInput) =>
  resolveConfig(
    {
      kafka: { brokers: testBrokers(), topic, groupId, fromBeginning: true },
      assembly: { settleMs: 300 },
      sinks: { otlp: false },
      ...extra,
    },
    {},
  )

const tracesOf = (sink: ReturnType<typeof createCollectingSink>) =>
  new Set(sink.records.map((r) => r.traceId))

describe('the sampling door in the pipeline', () => {
  it('passes by what the rate rejects; replay --rescore decides again at a new rate; a ledger replay delivers every recorded score', async () => {
    const topic = uniqueName('door-replay')
    await createTopic(testKafka(), topic, 2)
    const traffic = generateAgentTraffic({ runs: 120, plainTraces: 30, seed: 5 })
    // Five runs a record, as a Collector batches them.
    const records: Buffer[] = []
    for (let i = 0; i < traffic.runs.length; i += 5)
      records.push(encodeOtlpProto(traffic.runs.slice(i, i + 5).flatMap((r) => r.spans)))
    records.push(encodeOtlpProto(traffic.plainTraces.flat()))
    await produce(
      testKafka(),
      topic,
      records.map((value, i) => ({ value, partition: i % 2 })),
    )
    const pickedAt = (rate: number) =>
      new Set(traffic.runs.map((r) => r.traceId).filter((id) => shouldSample(id, rate)))
    const live = createCollectingSink()
    const service = createPipeline(
      configOf(topic, `${topic}-svc`, { scorers: scorersAt(0.3), ledger: { enabled: true } }),
      { logger: silentLogger(), extraSinks: [live] },
    )
    try {
      await service.start()
      await until(
        () => live.records.length >= pickedAt(0.3).size && service.stats().passedByTraces >= 1,
        90_000,
        () => `live ${live.records.length}/${pickedAt(0.3).size}`,
      )
      await until(
        () => service.stats().records === records.length,
        60_000,
        () => 'every record read',
      )
      const stats = service.stats()
      // Every run the rate rejects (and every plain trace, which no rate picks here) was passed by.
      const plainPicked = traffic.plainTraces.filter((t) => shouldSample(t[0]!.spanContext().traceId, 0.3))
      expect(stats.passedByTraces).toBe(traffic.runs.length - pickedAt(0.3).size + 30 - plainPicked.length)
      expect(stats.tracesReleased).toBe(pickedAt(0.3).size + plainPicked.length)
    } finally {
      await service.stop()
    }
    expect(tracesOf(live)).toEqual(pickedAt(0.3))

    const ends = await endOffsets(testKafka(), topic)
    const range = (name: string): PipelineRange => ({
      groupId: `${topic}-${name}`,
      startOffsets: new Map([...ends.keys()].map((p) => [p, '0'])),
      endOffsets: ends,
    })
    const replay = async (rate: number, rescore: boolean) => {
      const sink = createCollectingSink()
      const pipeline = createPipeline(
        configOf(topic, `${topic}-svc`, { scorers: scorersAt(rate), ledger: { enabled: true } }),
        { logger: silentLogger(), extraSinks: [sink], range: range(`r${rate}${rescore}`), rescore },
      )
      try {
        await pipeline.start()
        await pipeline.caughtUp
        await pipeline.drain()
      } finally {
        await pipeline.stop()
      }
      return tracesOf(sink)
    }
    // A replay of the ledger at a lower rate: every run the service scored is delivered again
    // (the door stays open: the ledger has scores of runs the lower rate would pass by).
    expect(await replay(0.1, false)).toEqual(pickedAt(0.3))
    // --rescore at a higher rate decides again: the runs that rate picks, scored anew.
    expect(await replay(0.6, true)).toEqual(pickedAt(0.6))
  })
})
