import { Kafka, logLevel } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoJudgePolicy } from '../../src/demo/demo-judge-policy.ts'
import { startScriptedJudge } from '../../src/demo/scripted-judge-server.ts'
import { loadTrafficSamples, withFreshIds } from '../../src/demo/traffic.ts'
import { decodeOtlpTraces } from '../../src/ingest/decode/index.ts'
import type { Span } from '../../src/model/index.ts'
import { shouldSample } from '../../src/scoring/sampling.ts'
import { extractAgentRuns } from '../../src/transform/index.ts'
import { freePort, repoRoot, spawnTracescore, writeTempFile } from '../helpers/cli.ts'
import { getSpans, phoenixTracesEndpoint } from '../helpers/phoenix.ts'

const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',')

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 90_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

function metric(text: string, name: string, labels: Record<string, string>): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`)
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) && want.every((w) => l.includes(w)))
    .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0)
}

// `tracescore run` as a process, as a user runs it: real broker, real Phoenix, a mixed
// configuration (code scorers, a sampled scorer, an @mastra/evals prebuilt scorer behind a
// filter, an LLM judge on the scripted server with a token budget that runs out).
describe('tracescore run', () => {
  const stamp = Date.now().toString(36)
  const topic = `run_${stamp}`
  const groupId = `run-test-${stamp}`
  // Recorded traffic under fresh trace ids: Phoenix keeps what earlier runs of this test sent.
  const traffic = loadTrafficSamples(`${repoRoot}test/fixtures/data`).map(withFreshIds)
  const traces = traffic.map((t) => decodeOtlpTraces(t.payload, 'otlp_proto'))
  // Every run, those found by generic reading alone (spans of no known vocabulary) too.
  const runs = traces.flatMap((spans: Span[]) => extractAgentRuns(spans))
  // Runs whose trace recorded the answer (answered needs it), and the input too (the judges need both).
  const answerable = runs.filter((r) => r.recorded?.finalText !== false)
  const judgeable = answerable.filter((r) => r.recorded?.input !== false)
  let judge: Awaited<ReturnType<typeof startScriptedJudge>>
  let kafka: Kafka

  beforeAll(async () => {
    judge = await startScriptedJudge(demoJudgePolicy)
    kafka = new Kafka({ clientId: 'run-test', brokers, logLevel: logLevel.NOTHING })
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic, numPartitions: 4 }], waitForLeaders: true })
    await admin.disconnect()
    const producer = kafka.producer()
    await producer.connect()
    // A few records per request: one request of every sample is over the broker's 1 MB batch limit.
    for (let at = 0; at < traffic.length; at += 20) {
      await producer.send({
        topic,
        messages: traffic.slice(at, at + 20).map((t) => ({ key: t.traceIds[0]!, value: t.payload })),
      })
    }
    await producer.disconnect()
  })
  afterAll(async () => {
    await judge?.close()
  })

  it('scores every run, samples by the hash rule, filters, spends the budget, exports, commits, and stops cleanly', async () => {
    const metricsPort = await freePort()
    const config = writeTempFile(
      `run-${stamp}.config.ts`,
      `import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { createCompletenessScorer } from '@mastra/evals/scorers/prebuilt'
import { createScorer, defineConfig } from 'tracescore'
import { answeredScorer } from '../../config/scorers/answered.ts'
import { createHelpfulnessScorer } from '../../config/scorers/helpfulness.ts'

const judge = createOpenAICompatible({ name: 'scripted', baseURL: '${judge.baseURL}' })('scripted-judge')
const sampled = createScorer({ id: 'sampled-length', description: 'output messages', type: 'agent' })
  .generateScore(({ run }) => run.output.length)

export default defineConfig({
  kafka: { topic: '${topic}', groupId: '${groupId}', fromBeginning: true, decisionsTopic: '${topic}_decisions' },
  // A trace whose root span never arrives (smolagents' model-error run lost its agent span) is
  // released by age, its runs flagged incomplete: 20 s instead of the default two minutes.
  assembly: { settleMs: 300, maxTraceAgeMs: 20_000 },
  scorers: {
    answered: { scorer: answeredScorer },
    sampled: { scorer: sampled, sampling: { type: 'ratio', rate: 0.5 } },
    completeness: { scorer: createCompletenessScorer(), filter: { agentNames: ['support-agent'] } },
    judge: { scorer: createHelpfulnessScorer(judge), dailyTokenBudget: 1 },
  },
  sinks: { otlp: { endpoint: '${phoenixTracesEndpoint()}', protocol: 'http/protobuf' } },
  metrics: { port: ${metricsPort} },
  log: { level: 'warn' },
})
`,
    )
    const service = spawnTracescore(['run', '--config', config])
    let code: number | null
    try {
      const metricsUrl = `http://127.0.0.1:${metricsPort}`
      await until('/readyz', async () =>
        (await fetch(`${metricsUrl}/readyz`).catch(() => undefined))?.ok ? true : undefined,
      )
      expect((await fetch(`${metricsUrl}/healthz`)).status).toBe(200)

      // Score spans as Phoenix stores them, in the runs' traces.
      const traceIds = [...new Set(runs.map((r) => r.traceId))]
      let stored: { name: string; traceId: string; parentSpanId: string | null }[] = []
      const refresh = async () => {
        stored = (await getSpans('default', { traceId: traceIds }))
          .filter((s) => s.name.startsWith('evaluation '))
          .map((s) => ({ name: s.name, traceId: s.context.trace_id, parentSpanId: s.parent_id }))
        return stored
      }
      const scoreSpans = () => stored
      const answered = await until('a score for every run', async () => {
        const spans = (await refresh()).filter((s) => s.name === 'evaluation answered')
        return spans.length >= answerable.length ? spans : undefined
      })
      // Every run with a recorded answer scored, each score span a child of its agent span in the same trace.
      expect(new Set(answered.map((s) => `${s.traceId}/${s.parentSpanId}`))).toEqual(
        new Set(answerable.map((r) => `${r.traceId}/${r.spanId}`)),
      )
      const text = await until('all decisions counted', async () => {
        const body = await (await fetch(`${metricsUrl}/metrics`)).text()
        const judged = ['scored', 'skipped-budget', 'failed'].reduce(
          (n, outcome) => n + metric(body, 'tracescore_decisions_total', { scorer: 'judge', outcome }),
          0,
        )
        return judged >= judgeable.length ? body : undefined
      })
      // Sampling: exactly the traces the hash rule picks.
      const sampledTraces = new Set(
        scoreSpans()
          .filter((s) => s.name === 'evaluation sampled-length')
          .map((s) => s.traceId),
      )
      expect(sampledTraces).toEqual(new Set(runs.map((r) => r.traceId).filter((t) => shouldSample(t, 0.5))))
      expect(metric(text, 'tracescore_decisions_total', { scorer: 'sampled', outcome: 'sampled-out' })).toBe(
        runs.filter((r) => !shouldSample(r.traceId, 0.5)).length,
      )
      // Filter: the Mastra prebuilt scorer saw only the support agent's runs.
      const completeness = scoreSpans().filter((s) => s.name === 'evaluation completeness-scorer')
      const supportRuns = runs.filter((r) => r.agentName === 'support-agent')
      expect(completeness.length).toBe(supportRuns.filter((r) => judgeable.includes(r)).length)
      expect(
        metric(text, 'tracescore_decisions_total', { scorer: 'completeness', outcome: 'filtered' }),
      ).toBe(runs.length - supportRuns.length)
      // Budget: the judge ran until its daily tokens were spent, then runs were skipped, counted.
      const judgeScored = metric(text, 'tracescore_decisions_total', { scorer: 'judge', outcome: 'scored' })
      const skipped = metric(text, 'tracescore_decisions_total', {
        scorer: 'judge',
        outcome: 'skipped-budget',
      })
      expect(judgeScored).toBeGreaterThanOrEqual(1)
      expect(skipped).toBeGreaterThanOrEqual(1)
      expect(judgeScored + skipped).toBe(judgeable.length)
      // The others were not scorable (their trace did not record the input or the answer): counted, not judged.
      expect(metric(text, 'tracescore_decisions_total', { scorer: 'judge', outcome: 'not-scorable' })).toBe(
        runs.length - judgeable.length,
      )
      expect(judge.requests.length).toBe(judgeScored * 2)
      expect(metric(text, 'tracescore_score_value_count', { scorer: 'answered' })).toBe(answerable.length)
      expect(text).toMatch(new RegExp(`^tracescore_records_total ${traffic.length}$`, 'm'))
      expect(text).toMatch(/^tracescore_consumer_lag\{partition="0"\} \d+$/m)
    } finally {
      code = await service.stop()
    }
    expect(code).toBe(0)
    expect(service.stderr()).not.toMatch(/"level":50/)
    // Graceful stop committed everything that was delivered.
    const admin = kafka.admin()
    await admin.connect()
    const committed = await admin.fetchOffsets({ groupId, topics: [topic] })
    const ends = await admin.fetchTopicOffsets(topic)
    await admin.disconnect()
    for (const end of ends) {
      const partition = committed[0]!.partitions.find((p) => p.partition === end.partition)!
      expect(partition.offset).toBe(end.high)
    }
    // The decisions topic holds one decision per (run, scorer), keyed by trace id.
    const consumer = kafka.consumer({ groupId: `${groupId}-decisions` })
    await consumer.connect()
    await consumer.subscribe({ topic: `${topic}_decisions`, fromBeginning: true })
    const decisions: { traceId: string; scorer: string; outcome: string }[] = []
    await consumer.run({
      eachMessage: async ({ message }) => {
        const value = JSON.parse(message.value!.toString())
        expect(message.key!.toString()).toBe(value.traceId)
        decisions.push(value)
      },
    })
    await until('all decisions on the topic', () => (decisions.length >= runs.length * 4 ? true : undefined))
    await consumer.disconnect()
    expect(decisions.filter((d) => d.scorer === 'sampled' && d.outcome === 'sampled-out').length).toBe(
      runs.filter((r) => !shouldSample(r.traceId, 0.5)).length,
    )
  })
})
