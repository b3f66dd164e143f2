import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { createAnswerRelevancyScorer } from '@mastra/evals/scorers/prebuilt'
import { wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resolveConfig } from '../config/define-config.ts'
import { messageText, startScriptedJudge } from '../demo/scripted-judge-server.ts'
import { loadTrafficSamples } from '../demo/traffic.ts'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import { extractAgentRuns } from '../transform/index.ts'
import { createScorer } from './create-scorer.ts'
import { judgeModel } from './governed-judge-model.ts'
import { type Judge, withJudge } from './judge.ts'
import { type JudgeFromConfigOptions, judgeFromConfig } from './judge-from-config.ts'
import { isGovernedJudgeModel } from './judge-limiter.ts'
import { JudgeTimeoutError } from './judge-request.ts'
import { scoreRun } from './score-run.ts'
import { fakeTime } from './testing/fake-time.ts'

// `@mastra/evals`' answer-relevancy scorer (Mastra's own createScorer and agent, streaming its
// judge calls) given tracescore's governed judge model, answered by the scripted judge over
// HTTP: its calls wait for the configured concurrency, requests and tokens per minute, time out,
// and their tokens count against the scorer's daily budget.

const run = extractAgentRuns(
  decodeOtlpTraces(
    loadTrafficSamples(new URL('../../test/fixtures/data', import.meta.url).pathname).find(
      (s) => s.name === 'ai-sdk-7-genai/single-turn',
    )!.payload,
    'otlp_proto',
  ),
)[0]!
/** A run as tracescore hands it to a scorer (Mastra's types want its LLM-judge shapes: same data). */
const input = { runId: 'run-1', input: run.input, output: run.output } as unknown as Parameters<
  ReturnType<typeof createAnswerRelevancyScorer>['run']
>[0]

/** Answers the three prompts of the answer-relevancy scorer: statements, verdicts, reason. */
let judge: Awaited<ReturnType<typeof startScriptedJudge>>
beforeAll(async () => {
  judge = await startScriptedJudge(({ messages }) => {
    const prompt = messages.map(messageText).join('\n')
    if (/Number of statements/.test(prompt))
      return JSON.stringify({ results: [{ result: 'yes', reason: 'on topic' }] })
    if (/Explain the relevancy score/.test(prompt)) return 'The score is 1 because the answer is on topic.'
    if (/Rate the answer/.test(prompt)) return JSON.stringify({ score: 1 })
    return JSON.stringify({ statements: ['We are open Monday to Friday.'] })
  })
})
afterAll(() => judge.close())

/** The scripted judge's model, measuring how many calls are in progress (call start to stream end). */
function measuredJudge(delayMs = 100) {
  const stats = { calls: 0, active: 0, peak: 0 }
  const end = () => {
    stats.active--
  }
  const model = wrapLanguageModel({
    model: createOpenAICompatible({ name: 'scripted', baseURL: judge.baseURL })('scripted-judge'),
    middleware: {
      specificationVersion: 'v4',
      wrapStream: async ({ doStream }) => {
        stats.calls++
        stats.active++
        stats.peak = Math.max(stats.peak, stats.active)
        await new Promise((r) => setTimeout(r, delayMs))
        const result = await doStream()
        return { ...result, stream: result.stream.pipeThrough(new TransformStream({ flush: end })) }
      },
    },
  })
  return { model, stats }
}

/** The judge the `judges` section of a configuration (and `scorers`, for their budgets) describes. */
function govern(config: { judges?: object; scorers?: object }, options: JudgeFromConfigOptions = {}): Judge {
  return judgeFromConfig(resolveConfig(config, {}), options)
}

/** The judge that puts `limits` on the scripted judge's model id. */
function governScripted(limits: object, options: JudgeFromConfigOptions = {}): Judge {
  return govern({ judges: { models: { 'scripted/scripted-judge': limits } } }, options)
}

/** The answer-relevancy scorer on the scripted judge under `limits`, waiting on fake time. */
function scorerOnFakeTime(limits: object) {
  const { model } = measuredJudge(0)
  const time = fakeTime()
  const governed = governScripted(limits, { time })
  const scorer = createAnswerRelevancyScorer({ model: judgeModel(model) })
  return { time, scoreOnce: () => withJudge(governed, () => scorer.run(input)) }
}

describe('judgeModel with an @mastra/evals LLM scorer', () => {
  it('is a v4 model, marked as governed, named after the id it was given', () => {
    const model = judgeModel('openai/gpt-5-mini')
    expect(model).toMatchObject({ specificationVersion: 'v4', provider: 'openai', modelId: 'gpt-5-mini' })
    expect(isGovernedJudgeModel(model)).toBe(true)
  })

  it('holds the judge calls to the configured concurrency of the model id', async () => {
    const { model, stats } = measuredJudge()
    // Resolved when first called, so a resolver set after the scorer was made still applies.
    const scorer = createAnswerRelevancyScorer({ model: judgeModel('scripted/scripted-judge') })
    const governed = governScripted({ concurrency: 2 }, { resolveModel: () => model })
    const before = judge.requests.length
    const results = await withJudge(governed, () =>
      Promise.all(Array.from({ length: 6 }, (_, i) => scorer.run({ ...input, runId: `r${i}` }))),
    )
    expect(results.map((r) => r.score)).toEqual([1, 1, 1, 1, 1, 1])
    // Three judge calls per run (statements, verdicts, reason), never more than two at once.
    expect(stats.calls).toBe(18)
    expect(judge.requests.length - before).toBe(18)
    expect(stats.peak).toBe(2)
  })

  it('runs the same scorer unbounded with a plain model (the limit above is the governed model’s doing)', async () => {
    const { model, stats } = measuredJudge()
    const governed = governScripted({ concurrency: 2 })
    // Cast: Mastra's copy of the v4 model type lags the AI SDK's (judgeModel's own type is loose).
    const scorer = createAnswerRelevancyScorer({ model: model as never })
    await withJudge(governed, () =>
      Promise.all(Array.from({ length: 6 }, (_, i) => scorer.run({ ...input, runId: `r${i}` }))),
    )
    expect(stats.peak).toBeGreaterThan(2)
  })

  it('waits for requestsPerMinute', async () => {
    const { time, scoreOnce } = scorerOnFakeTime({ requestsPerMinute: 4 })
    await scoreOnce()
    expect(time.slept).toEqual([])
    // Calls 5 and 6 fall in the next minute.
    await scoreOnce()
    expect(time.slept).toHaveLength(1)
    expect(time.now()).toBe(60_000)
  })

  it('feeds its token usage to tokensPerMinute', async () => {
    const { time, scoreOnce } = scorerOnFakeTime({ tokensPerMinute: 500 })
    // The first prompt alone is ~500 tokens (the scripted judge counts 4 characters a token).
    await scoreOnce()
    expect(time.slept.length).toBeGreaterThan(0)
    expect(time.now()).toBeGreaterThanOrEqual(60_000)
  })

  it('counts its tokens against the scorer’s daily budget: spent, the next run is skipped', async () => {
    const { model } = measuredJudge(0)
    const config = resolveConfig(
      {
        scorers: {
          relevancy: {
            scorer: createAnswerRelevancyScorer({ model: judgeModel(model) }),
            dailyTokenBudget: 1000,
          },
        },
      },
      {},
    )
    const governed = judgeFromConfig(config)
    const budget = governed.budget!
    const before = judge.requests.length
    const [first] = await scoreRun(run, config.scorers, { judge: governed })
    expect(first!.outcome).toBe('scored')
    const judged = first!.record!.judge!
    expect(judged.calls).toBe(3)
    // What the scripted judge reported, summed: prompt + completion tokens of its three answers.
    expect(judged.totalTokens).toBeGreaterThan(1000)
    expect(budget.spentToday()).toEqual({ relevancy: judged.totalTokens })
    const [second] = await scoreRun(run, config.scorers, { judge: governed })
    expect(second!.outcome).toBe('skipped-budget')
    expect(judge.requests.length - before).toBe(3)
  })

  it('times a call out after the judge timeout and frees its slot', async () => {
    const governed = govern({ judges: { timeoutMs: 100, models: { 'mock/hanging': { concurrency: 1 } } } })
    // A provider that never answers: its stream only ends when the call is aborted.
    const hanging = new MockLanguageModelV4({
      provider: 'mock',
      modelId: 'hanging',
      doStream: async ({ abortSignal }) => {
        await new Promise((_, reject) =>
          abortSignal?.addEventListener('abort', () => reject(abortSignal.reason)),
        )
        throw new Error('unreachable')
      },
    })
    const model = judgeModel(hanging)
    const call = () =>
      withJudge(governed, () =>
        model.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }),
      )
    await expect(call()).rejects.toBeInstanceOf(JudgeTimeoutError)
    // Concurrency 1: the second call gets the slot only because the first one gave it back.
    await expect(call()).rejects.toThrow('Judge request timed out after 100 ms')
  })

  it('is not scheduled twice inside a tracescore createScorer judge (concurrency 1 does not deadlock)', async () => {
    const { model } = measuredJudge(0)
    const governed = governScripted({ concurrency: 1 })
    const before = judge.requests.length
    const scorer = createScorer({
      id: 'plain',
      description: 'one judge call',
      judge: { model: judgeModel(model), instructions: 'Judge.' },
    }).generateScore({
      description: 'score',
      createPrompt: () => 'Rate the answer.',
    })
    const result = await scorer.run(
      { runId: 'run-1', input: run.input, output: run.output },
      { judge: governed },
    )
    expect(result.score).toBe(1)
    expect(judge.requests.length - before).toBe(1)
  })
})
