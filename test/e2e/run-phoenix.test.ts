import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoJudgePolicy } from '../../src/demo/demo-judge-policy.ts'
import { startScriptedJudge } from '../../src/demo/scripted-judge-server.ts'
import { loadTrafficSamples, withFreshIds } from '../../src/demo/traffic.ts'
import { decodeOtlpTraces } from '../../src/ingest/decode/index.ts'
import { extractAgentRuns } from '../../src/transform/index.ts'
import { repoRoot, spawnTracescore, writeTempFile } from '../helpers/cli.ts'
import { createTopic, produce, testKafka, uniqueName, untilFullyCommitted } from '../helpers/kafka.ts'
import { getSpanAnnotations, phoenixUrl, waitForSpans } from '../helpers/phoenix.ts'

// `tracescore run` as a user runs it, between a real Kafka broker and a real Phoenix server:
// the agent traces (recorded from real instrumentation, fresh trace ids) go to Kafka and to
// Phoenix; tracescore's score spans must land in Phoenix in the same traces, under the agent spans,
// and the evaluation log records (on by default) must give up on Phoenix, which takes no logs.
describe('tracescore run → Phoenix', () => {
  const topic = uniqueName('e2e_run')
  const samples = loadTrafficSamples(`${repoRoot}test/fixtures/data`).filter((s) =>
    /^(ai-sdk-7-genai|mastra|openinference-openai)\//.test(s.name),
  )
  const traffic = samples.map(withFreshIds)
  const runs = traffic.flatMap((t) => extractAgentRuns(decodeOtlpTraces(t.payload, 'otlp_proto')))
  let judge: Awaited<ReturnType<typeof startScriptedJudge>>

  beforeAll(async () => {
    judge = await startScriptedJudge(demoJudgePolicy)
    await createTopic(testKafka(), topic, 2)
    for (const t of traffic) {
      const res = await fetch(`${phoenixUrl()}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf' },
        body: t.payload,
      })
      expect(res.status).toBe(200)
    }
    await produce(
      testKafka(),
      topic,
      traffic.map((t) => ({ key: t.traceIds[0]!, value: t.payload })),
    )
  })
  afterAll(() => judge?.close())

  it('puts every score in its trace, parented to the agent span, with annotations on the agent spans', async () => {
    const config = writeTempFile(
      `${topic}.config.ts`,
      `import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { defineConfig } from 'tracescore'
import { answeredScorer } from '../../config/scorers/answered.ts'
import { createHelpfulnessScorer } from '../../config/scorers/helpfulness.ts'

const judge = createOpenAICompatible({ name: 'scripted', baseURL: '${judge.baseURL}' })('scripted-judge')
export default defineConfig({
  kafka: { topic: '${topic}', groupId: '${topic}', fromBeginning: true },
  assembly: { settleMs: 300 },
  scorers: { answered: { scorer: answeredScorer }, helpfulness: { scorer: createHelpfulnessScorer(judge) } },
  sinks: {
    otlp: { endpoint: '${phoenixUrl()}/v1/traces', protocol: 'http/protobuf' },
    phoenix: { url: '${phoenixUrl()}' },
  },
  metrics: { port: 0 },
  log: { level: 'warn' },
})
`,
    )
    const service = spawnTracescore(['run', '--config', config])
    let code: number | null
    try {
      const traceIds = [...new Set(runs.map((r) => r.traceId))]
      const scores = await waitForSpans('default', {
        traceId: traceIds,
        name: ['evaluation answered', 'evaluation helpfulness'],
        minCount: runs.length * 2,
        timeoutMs: 120_000,
      })
      for (const run of runs) {
        const mine = scores.filter((s) => s.context.trace_id === run.traceId && s.parent_id === run.spanId)
        expect(mine.map((s) => s.name).sort()).toEqual(['evaluation answered', 'evaluation helpfulness'])
        const helpfulness = mine.find((s) => s.name === 'evaluation helpfulness')!
        expect(helpfulness.attributes['gen_ai.evaluation.name']).toBe('helpfulness')
        expect(helpfulness.attributes['gen_ai.evaluation.score.value']).toEqual(expect.any(Number))
        expect(helpfulness.attributes['gen_ai.evaluation.explanation']).toMatch(/^Scripted judge:/)
        expect(helpfulness.attributes['tracescore.judge.model']).toBe('scripted-judge')
        expect(helpfulness.attributes['tracescore.agent.name']).toBe(run.agentName)
        expect(helpfulness.status_code).not.toBe('ERROR')
      }
      // The agent spans themselves are in Phoenix, so the scores sit inside whole traces.
      const agents = await waitForSpans('default', {
        spanId: runs.map((r) => r.spanId),
        minCount: runs.length,
      })
      expect(new Set(agents.map((a) => a.context.span_id))).toEqual(new Set(runs.map((r) => r.spanId)))
      const annotations = await getSpanAnnotations(
        'default',
        runs.map((r) => r.spanId),
      )
      for (const run of runs) {
        const mine = annotations.filter((a) => a.span_id === run.spanId)
        expect(mine.map((a) => `${a.name}:${a.annotator_kind}:${a.identifier}`).sort()).toEqual([
          'answered:CODE:answered',
          'helpfulness:LLM:helpfulness',
        ])
      }
      // Phoenix takes no OTLP logs (POST /v1/logs answers 405): the evaluation log records, on by
      // default, must neither be retried forever nor hold the offsets of the runs they belong to.
      await untilFullyCommitted(testKafka(), topic, topic, 'every offset committed')
    } finally {
      code = await service.stop()
    }
    expect(code).toBe(0)
    expect(service.stderr()).not.toMatch(/"level":50/)
    // One clear warning, then the logs exporter is off for this backend (no warning per score).
    const noLogs = service
      .stderr()
      .split('\n')
      .filter((line) => line.includes('the OTLP backend takes no logs'))
    expect(noLogs).toHaveLength(1)
    expect(JSON.parse(noLogs[0]!)).toMatchObject({ level: 40, status: 405 })
  })
})
