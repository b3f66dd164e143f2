import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { answeredScorer } from '../../config/scorers/answered.ts'
import { resolveConfig } from '../../src/config/index.ts'
import { createCollectingSink } from '../../src/demo/summary.ts'
import { decodeOtlpTraces } from '../../src/ingest/decode/index.ts'
import { silentLogger } from '../../src/ops/logger.ts'
import { createPipeline } from '../../src/pipeline.ts'
import { extractAgentRuns } from '../../src/transform/index.ts'
import { listFixtures } from '../fixtures/index.ts'
import { createTopic, produce, testBrokers, testKafka, uniqueName } from '../helpers/kafka.ts'

// Upstream without partition_traces_by_id: null keys, and spans of one trace split over several
// records on different partitions. With kafka.repartition the pipeline re-keys them by trace id.
describe('pipeline with kafka.repartition', () => {
  it('scores every run exactly once when the spans of a trace arrive unkeyed across partitions', async () => {
    const topic = uniqueName('repartition')
    await createTopic(testKafka(), topic, 3)
    const fixtures = listFixtures(['ai-sdk-7-genai']).slice(0, 6)
    const spans = fixtures.map((f) => readFileSync(f.jsonPath, 'utf8'))
    const runs = fixtures.flatMap((f) =>
      extractAgentRuns(decodeOtlpTraces(readFileSync(f.protoPath), 'otlp_proto')),
    )
    // Split every request in two halves of its spans, each its own null-key record.
    const halves = spans.flatMap((json) => {
      const request = JSON.parse(json)
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
      halves.map((value, i) => ({ key: null, value, partition: i % 3 })),
    )
    const config = resolveConfig(
      {
        kafka: {
          brokers: testBrokers(),
          topic,
          groupId: topic,
          fromBeginning: true,
          encoding: 'otlp_json',
          repartition: true,
        },
        assembly: { settleMs: 500 },
        scorers: { answered: { scorer: answeredScorer } },
        sinks: { otlp: false },
      },
      {},
    )
    const collected = createCollectingSink()
    const pipeline = createPipeline(config, { logger: silentLogger(), extraSinks: [collected] })
    await pipeline.start()
    const deadline = Date.now() + 60_000
    while (collected.records.length < runs.length && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200))
    await new Promise((r) => setTimeout(r, 1000)) // room for any duplicate to show up
    await pipeline.stop()
    expect(collected.records.map((r) => `${r.traceId}/${r.spanId}`).sort()).toEqual(
      runs.map((r) => `${r.traceId}/${r.spanId}`).sort(),
    )
  })
})
