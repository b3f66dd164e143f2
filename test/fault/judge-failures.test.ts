/**
 * The LLM judge fails 30% of requests transiently (503/429) and 5% of runs permanently (half
 * with retryable 500s forever, half with a non-retryable 400). `tracescore run` (the CLI) scores
 * with a judge whose `StreamErrorRetryProcessor` allows 3 retries. Proves: every run ends with
 * exactly one score span — a score, or an ERROR span when the judge never answered —, nothing
 * is stuck (all offsets committed), retries stay within the budget (≤ 4 requests per run, 1 for
 * a 400), judge concurrency stays within its limit, and each outcome matches what the judge did.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { type ServiceProcess, startService } from '../helpers/cli.ts'
import { type FaultJudge, type FaultJudgeReply, startFaultJudge, unitHash } from '../helpers/fault-judge.ts'
import { type OtlpReceiver, scoresByRun, startOtlpReceiver } from '../helpers/fault-otlp-receiver.ts'
import { writeServiceConfig } from '../helpers/fault-process.ts'
import { groupOffsets, makeRuns, produceRuns, runKey } from '../helpers/fault-traffic.ts'
import { createTopic, testBrokers, testKafka, uniqueName } from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

const RUNS = Number(process.env.FAULT_JUDGE_RUNS ?? 1_000)
const MAX_RETRIES = 3
const CONCURRENCY = 8
const PARTITIONS = 2

type Fate = 'permanent-500' | 'permanent-400' | 'flaky'
const fateOf = (runId: string): Fate => {
  const h = unitHash(runId, 1)
  return h < 0.025 ? 'permanent-500' : h < 0.05 ? 'permanent-400' : 'flaky'
}
const runIdIn = (prompt: string) => /run ([0-9a-f]{32}-[0-9a-f]{16})/.exec(prompt)?.[1] ?? ''

const policy = ({ prompt, seq }: { prompt: string; seq: number }): FaultJudgeReply => {
  const fate = fateOf(runIdIn(prompt))
  if (fate === 'permanent-500')
    return { status: 500, type: 'server_error', message: 'judge is broken for this run' }
  if (fate === 'permanent-400')
    return { status: 400, type: 'invalid_request_error', message: 'prompt rejected' }
  const roll = unitHash(String(seq), 2)
  if (roll < 0.2) return { status: 503, type: 'service_unavailable', message: 'overloaded, retry' }
  if (roll < 0.3) return { status: 429, type: 'rate_limit_exceeded', message: 'slow down' }
  return { text: `{"score": ${(unitHash(prompt, 3) * 0.9 + 0.1).toFixed(2)}}` }
}

describe('judge failing transiently and permanently', () => {
  const kafka = testKafka('fault-judge')
  let receiver: OtlpReceiver | undefined
  let service: ServiceProcess | undefined
  let judge: FaultJudge | undefined
  afterAll(async () => {
    await service?.kill9()
    await receiver?.close()
    await judge?.close()
  })

  it(`ends each of ${RUNS} runs scored or with an error span, retries within budget`, async () => {
    const topic = uniqueName('fault-judge')
    const groupId = uniqueName('fault-judge-group')
    await createTopic(kafka, topic, PARTITIONS)
    receiver = await startOtlpReceiver()
    judge = await startFaultJudge({ latencyMs: 20, policy })
    const rx = receiver
    const config = writeServiceConfig(uniqueName('fault-judge'), {
      brokers: testBrokers(),
      topic,
      groupId,
      deadLetterTopic: `${topic}-dlq`,
      otlpUrl: rx.url,
      preamble: `import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { createScorer, StreamErrorRetryProcessor } from 'tracescore'
const model = createOpenAICompatible({ name: 'scripted', baseURL: process.env.FAULT_JUDGE_URL })('fault-judge')
const judged = createScorer({
  id: 'judged',
  description: 'an LLM judge behind a failing provider',
  type: 'agent',
  judge: {
    model,
    instructions: 'Rate the agent answer from 0 to 1.',
    errorProcessors: [new StreamErrorRetryProcessor({ maxRetries: ${MAX_RETRIES}, delayMs: 20 })],
  },
}).generateScore({
  description: 'Rate the answer',
  createPrompt: ({ run }) => 'Rate the answer of run ' + run.runId + '. Answer with a JSON object {"score": number}.',
})`,
      scorers: '{ judged: { scorer: judged } }',
      judges: `{ defaultLimits: { concurrency: ${CONCURRENCY} }, timeoutMs: 10000 }`,
    })
    const runs = makeRuns(RUNS, 13)
    service = await startService(config, { env: { FAULT_JUDGE_URL: judge.baseURL } })
    const producer = kafka.producer()
    await producer.connect()
    const placements = await produceRuns(producer, topic, runs, { partitions: PARTITIONS, batch: 100 })
    await producer.disconnect()

    await until(
      () => rx.scores.size >= runs.length,
      240_000,
      () => `a score span for every run (${rx.scores.size}/${runs.length})`,
      500,
    )
    // Nothing stuck: the group commits the end of every partition.
    const ends = new Map<number, number>()
    for (const p of placements.values())
      ends.set(p.partition, Math.max(ends.get(p.partition) ?? 0, p.offset + 1))
    await until(
      async () => {
        const committed = await groupOffsets(kafka, groupId, topic)
        return [...ends].every(([p, end]) => committed.get(p) === end)
      },
      30_000,
      () => 'every offset committed',
    )
    expect(await service.stop()).toBe(0)

    // Requests per run, and whether the judge ever answered it.
    const requests = new Map<string, number>()
    const answered = new Set<string>()
    for (const entry of judge.log) {
      const id = runIdIn(entry.prompt)
      requests.set(id, (requests.get(id) ?? 0) + 1)
      if (entry.status === 200) answered.add(id)
    }
    const byRun = scoresByRun(rx)
    const counts = { scored: 0, errorPermanent500: 0, errorPermanent400: 0, errorExhausted: 0 }
    for (const run of runs) {
      const id = `${run.traceId}-${run.agentSpanId}`
      const spans = byRun.get(runKey(run)) ?? []
      expect(spans, id).toHaveLength(1)
      const span = spans[0]!
      const n = requests.get(id) ?? 0
      expect(n, `requests for ${id}`).toBeGreaterThanOrEqual(1)
      expect(n, `requests for ${id}`).toBeLessThanOrEqual(MAX_RETRIES + 1)
      const fate = fateOf(id)
      if (fate === 'permanent-400') {
        expect(span.error).toBe(true)
        expect(n).toBe(1)
        counts.errorPermanent400++
      } else if (fate === 'permanent-500') {
        expect(span.error).toBe(true)
        expect(n).toBe(MAX_RETRIES + 1)
        counts.errorPermanent500++
      } else if (answered.has(id)) {
        expect(span.error).toBe(false)
        expect(typeof span.span.attributes['gen_ai.evaluation.score.value']).toBe('number')
        counts.scored++
      } else {
        // Four transient failures in a row: the budget is spent, the run ends with an error span.
        expect(span.error).toBe(true)
        expect(n).toBe(MAX_RETRIES + 1)
        counts.errorExhausted++
      }
    }
    expect(judge.maxInFlight()).toBeLessThanOrEqual(CONCURRENCY)
    const failedRequests = judge.log.filter((e) => e.status !== 200).length
    console.log(
      `judge faults: ${runs.length} runs -> ${JSON.stringify(counts)}; ${judge.log.length} judge requests, ` +
        `${failedRequests} failed; most in flight ${judge.maxInFlight()} (limit ${CONCURRENCY}); ${rx.duplicates()} duplicates`,
    )
    expect(counts.errorPermanent400 + counts.errorPermanent500).toBeGreaterThan(0)
    expect(failedRequests / judge.log.length).toBeGreaterThan(0.25)
  })
})
