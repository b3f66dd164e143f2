/**
 * Differential suite: the same scorer definitions run through tracescore's `createScorer` and
 * `@mastra/core` 1.71's, each with its own copy of the same scripted judge (an `ai/test`
 * MockLanguageModelV4; Mastra streams, tracescore generates). Results, step results, prompts,
 * judge records and what the judge received must match, except where the seeds deliberately
 * differ from Mastra's code (calculateScore, the maxProcessorRetries default), which is stated.
 */
import { createScorer as mastraCreateScorer } from '@mastra/core/evals'
import { APICallError } from 'ai'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { createScorer } from '../../../src/scoring/create-scorer.ts'
import type { Processor } from '../../../src/scoring/processor.ts'
import {
  type JudgeTurn,
  type ScriptedJudge,
  scriptedJudge,
} from '../../../src/scoring/testing/scripted-judge.ts'

// Mastra's judge agent logs the failures these tests provoke on purpose; keep the output readable.
beforeAll(() => {
  vi.spyOn(console, 'error').mockImplementation(() => {})
  vi.spyOn(console, 'warn').mockImplementation(() => {})
})
afterAll(() => vi.restoreAllMocks())

type Create = (config: any) => any
type Define = (create: Create, model: ScriptedJudge['model']) => any

interface Side {
  result?: Record<string, any>
  error?: any
  judge: ScriptedJudge
}

async function runOn(
  create: Create,
  define: Define,
  turns: JudgeTurn[],
  input: Record<string, unknown>,
  model?: { provider: string; modelId: string },
): Promise<Side> {
  const judge = scriptedJudge(turns, model)
  try {
    return { result: await define(create, judge.model).run(structuredClone(input)), judge }
  } catch (error) {
    return { error, judge }
  }
}

/** Runs one definition through both libraries with identical scripts. */
async function both(
  define: Define,
  turns: JudgeTurn[],
  input: Record<string, unknown>,
  model?: { provider: string; modelId: string },
) {
  const ours = await runOn(createScorer as Create, define, turns, input, model)
  const mastra = await runOn(mastraCreateScorer as Create, define, turns, input, model)
  return { ours, mastra }
}

/** What a judge received, in a form both libraries produce: system texts, user text parts, response format. */
function received(judge: ScriptedJudge) {
  return judge.calls.map((call) => ({
    system: call.prompt.filter((m) => m.role === 'system').map((m) => m.content),
    user: call.prompt
      .filter((m) => m.role === 'user')
      .map((m) => (m.content as { type: string; text: string }[]).map((p) => p.text)),
    responseFormat: call.responseFormat?.type === 'json' ? call.responseFormat : undefined,
    providerOptions: call.providerOptions,
  }))
}

/** Judge records without wall-clock durations. */
function withoutDurations(judge: Record<string, { executions: Record<string, unknown>[] }> | undefined) {
  if (!judge) return judge
  return Object.fromEntries(
    Object.entries(judge).map(([step, { executions }]) => [
      step,
      { executions: executions.map(({ durationMs: _, ...rest }) => rest) },
    ]),
  )
}

/** The result with only the keys whose values are defined (Mastra omits nothing, but values may be undefined). */
function comparable(result: Record<string, any> | undefined) {
  if (!result) return result
  const { judge, ...rest } = result
  return { ...rest, judge: withoutDurations(judge) }
}

function expectSame({ ours, mastra }: { ours: Side; mastra: Side }) {
  expect(ours.error).toBeUndefined()
  expect(mastra.error).toBeUndefined()
  expect(Object.keys(ours.result!)).toEqual(Object.keys(mastra.result!))
  expect(comparable(ours.result)).toEqual(comparable(mastra.result))
  expect(received(ours.judge)).toEqual(received(mastra.judge))
}

const GLUTEN_SCHEMA = z.object({ isGlutenFree: z.boolean(), glutenSources: z.array(z.string()) })

const gluten: Define = (create, model) =>
  create({
    id: 'gluten-checker',
    description: 'Check if the output contains any gluten',
    judge: { model, instructions: 'You are a Chef that identifies if recipes contain gluten.' },
  })
    .analyze({
      description: 'Analyze the output for gluten',
      outputSchema: GLUTEN_SCHEMA,
      createPrompt: ({ run }: any) => `Recipe to analyze:\n${run.output.text}`,
    })
    .generateScore(({ results }: any) => (results.analyzeStepResult.isGlutenFree ? 1 : 0))
    .generateReason({
      description: 'Generate a reason for the score',
      createPrompt: ({ results, score }: any) =>
        `Explain score ${score}: ${JSON.stringify(results.analyzeStepResult)}`,
    })

describe('tracescore vs @mastra/core createScorer', () => {
  it('function-only four-step scorer: identical result, keys in the same order', async () => {
    const define: Define = (create) =>
      create({ id: 'fn', description: 'd' })
        .preprocess(({ run }: any) => ({ words: String(run.output).split(' ').length }))
        .analyze(async ({ results }: any) => ({ long: results.preprocessStepResult.words > 2 }))
        .generateScore(({ results }: any) => (results.analyzeStepResult.long ? 1 : 0.25))
        .generateReason(
          ({ score, results }: any) => `score=${score} words=${results.preprocessStepResult.words}`,
        )
    const input = { input: 'i', output: 'a b c', groundTruth: 'g', runId: 'r1', requestContext: { a: 1 } }
    expectSame(await both(define, [], input))
  })

  it('gluten checker (analyze prompt, function score, prompt reason): same score, reason, steps, prompts, judge', async () => {
    const turns = ['{"isGlutenFree":false,"glutenSources":["flour"]}', 'It contains flour.']
    const pair = await both(gluten, turns, {
      input: 'x',
      output: { text: 'Mix flour and water' },
      runId: 'r',
    })
    expectSame(pair)
    expect(pair.ours.result).toMatchObject({ score: 0, reason: 'It contains flour.' })
    // 'auto' with an unknown provider: the schema was inlined into the user message by both
    expect(received(pair.ours.judge)[0]!.user[0]).toHaveLength(2)
  })

  it('prompt-mode generateScore without calculateScore: both ask for { score: number }', async () => {
    const define: Define = (create, model) =>
      create({ id: 'ps', description: 'd', judge: { model, instructions: 'Rate.' } }).generateScore({
        description: 'score',
        createPrompt: ({ run }: any) => `Rate: ${run.output}`,
      })
    expectSame(await both(define, ['{"score":0.42}'], { output: 'answer', runId: 'r' }))
  })

  it('four prompt-object steps on an agent run: same step results, all four prompts, same judge requests', async () => {
    const define: Define = (create, model) =>
      create({
        id: 'four-prompts',
        description: 'd',
        type: 'agent',
        judge: { model, instructions: 'Evaluate.' },
      })
        .preprocess({
          description: 'extract',
          outputSchema: z.object({ question: z.string() }),
          createPrompt: ({ run }: any) =>
            `Extract the question from: ${run.input.inputMessages[0].content.content}`,
        })
        .analyze({
          description: 'analyze',
          outputSchema: z.object({ answered: z.boolean(), confidence: z.number().min(0).max(1) }),
          createPrompt: ({ run, results }: any) =>
            `Question: ${results.preprocessStepResult.question}\nAnswer: ${run.output[0].content.content}`,
        })
        .generateScore({
          description: 'score',
          createPrompt: ({ results }: any) =>
            `Score this analysis: ${JSON.stringify(results.analyzeStepResult)}`,
        })
        .generateReason({
          description: 'reason',
          createPrompt: ({ score, results }: any) =>
            `Why ${score}? ${results.preprocessStepResult.question} / ${results.analyzeStepResult.answered}`,
        })
    const message = (role: string, text: string) => ({
      id: `${role}-1`,
      role,
      createdAt: new Date(0),
      content: { format: 2, parts: [{ type: 'text', text }], content: text },
    })
    const input = {
      input: {
        inputMessages: [message('user', 'What is the capital of France?')],
        rememberedMessages: [],
        systemMessages: [{ role: 'system', content: 'You are helpful.' }],
        taggedSystemMessages: {},
      },
      output: [message('assistant', 'Paris.')],
      runId: 'r',
    }
    const turns = [
      '{"question":"What is the capital of France?"}',
      '{"answered":true,"confidence":0.9}',
      '{"score":0.9}',
      'The answer is correct and direct.',
    ]
    const pair = await both(define, turns, input)
    expectSame(pair)
    expect(pair.ours.result).toMatchObject({
      score: 0.9,
      reason: 'The answer is correct and direct.',
      preprocessPrompt: 'Extract the question from: What is the capital of France?',
      generateReasonPrompt: 'Why 0.9? What is the capital of France? / true',
    })
    expect(Object.keys(pair.ours.result!.judge)).toEqual([
      'preprocess',
      'analyze',
      'generateScore',
      'generateReason',
    ])
  })

  for (const jsonPromptInjection of [false, true, 'system', 'inline'] as const) {
    it(`jsonPromptInjection ${String(jsonPromptInjection)}: the judge receives the same request`, async () => {
      const define: Define = (create, model) =>
        create({ id: 'j', description: 'd', judge: { model, instructions: 'Judge.', jsonPromptInjection } })
          .analyze({ description: 'a', outputSchema: GLUTEN_SCHEMA, createPrompt: () => 'Analyze.' })
          .generateScore(({ results }: any) => (results.analyzeStepResult.isGlutenFree ? 1 : 0))
      expectSame(
        await both(define, ['{"isGlutenFree":true,"glutenSources":[]}'], { output: 'o', runId: 'r' }),
      )
    })
  }

  for (const [provider, modelId, placement] of [
    ['openai.responses', 'gpt-5-mini', 'native (strict)'],
    ['anthropic.messages', 'claude-sonnet-4-5', 'native'],
    ['ollama.chat', 'llama3.2', 'inline'],
  ] as const) {
    it(`'auto' for ${provider}: ${placement}, the same request as Mastra sends`, async () => {
      const define: Define = (create, model) =>
        create({ id: 'auto', description: 'd', judge: { model, instructions: 'Judge.' } })
          .analyze({ description: 'a', outputSchema: GLUTEN_SCHEMA, createPrompt: () => 'Analyze.' })
          .generateScore({ description: 's', createPrompt: () => 'Score.' })
      const turns = ['{"isGlutenFree":true,"glutenSources":[]}', '{"score":1}']
      const pair = await both(define, turns, { output: 'o', runId: 'r' }, { provider, modelId })
      expectSame(pair)
      expect(received(pair.ours.judge)[0]!.responseFormat === undefined).toBe(placement === 'inline')
    })
  }

  it('an answer that is not JSON: both retry once with the schema injected (attemptCount 2)', async () => {
    const define: Define = (create, model) =>
      create({
        id: 'f',
        description: 'd',
        judge: { model, instructions: 'Judge.', jsonPromptInjection: false },
      })
        .analyze({ description: 'a', outputSchema: GLUTEN_SCHEMA, createPrompt: () => 'Analyze.' })
        .generateScore(({ results }: any) => (results.analyzeStepResult.isGlutenFree ? 1 : 0))
    const pair = await both(define, ['I think it is fine!', '{"isGlutenFree":true,"glutenSources":[]}'], {
      output: 'o',
      runId: 'r',
    })
    expectSame(pair)
    expect(pair.ours.result!.judge.analyze.executions[0].attemptCount).toBe(2)
  })

  it('fallbackJsonPromptInjection inline: both put the schema in the user message on the retry', async () => {
    const define: Define = (create, model) =>
      create({
        id: 'f',
        description: 'd',
        judge: {
          model,
          instructions: 'Judge.',
          jsonPromptInjection: false,
          fallbackJsonPromptInjection: 'inline',
        },
      })
        .analyze({ description: 'a', outputSchema: GLUTEN_SCHEMA, createPrompt: () => 'Analyze.' })
        .generateScore(({ results }: any) => (results.analyzeStepResult.isGlutenFree ? 1 : 0))
    const turns = ['{"isGlutenFree":"maybe"}', '{"isGlutenFree":false,"glutenSources":["rye"]}']
    const pair = await both(define, turns, { output: 'o', runId: 'r' })
    expectSame(pair)
    expect(received(pair.ours.judge)[1]!.user[0]).toHaveLength(2)
  })

  it('step judge overrides: same model choice and merged instructions', async () => {
    const define: Define = (create, model) =>
      create({ id: 'o', description: 'd', judge: { model, instructions: 'Scorer level.' } })
        .analyze({
          description: 'a',
          outputSchema: GLUTEN_SCHEMA,
          createPrompt: () => 'Analyze.',
          judge: { instructions: 'Step level.', jsonPromptInjection: 'system' },
        })
        .generateScore({ description: 's', createPrompt: () => 'Score.' })
    expectSame(
      await both(define, ['{"isGlutenFree":true,"glutenSources":[]}', '{"score":1}'], {
        output: 'o',
        runId: 'r',
      }),
    )
  })

  it('notScorable from a function step: same outcome, no score key, no judge call', async () => {
    const define: Define = (create, model) =>
      create({ id: 'n', description: 'd', judge: { model, instructions: 'i' } })
        .preprocess(() => ({ seen: true }))
        .analyze(async () => {
          const { notScorable } = await import('@mastra/core/evals')
          return notScorable('nothing to judge')
        })
        .generateScore({ description: 's', createPrompt: () => 'p' })
    const pair = await both(define, ['{"score":1}'], { output: 'o', runId: 'r' })
    expectSame(pair)
    expect(pair.ours.result!.notScorable).toEqual({ step: 'analyze', reason: 'nothing to judge' })
    expect('score' in pair.ours.result!).toBe(false)
  })

  it('prepareRun replaces the run in both, including in the result', async () => {
    const define: Define = (create) =>
      create({
        id: 'p',
        description: 'd',
        prepareRun: async (run: any) => ({
          ...run,
          output: String(run.output).toUpperCase(),
          groundTruth: undefined,
        }),
      }).generateScore(({ run }: any) => (run.output === 'ABC' ? 1 : 0))
    expectSame(await both(define, [], { output: 'abc', groundTruth: 'g', runId: 'r' }))
  })

  it('a failing step: same ScorerRunError message, failedStep, completedSteps and partial result', async () => {
    const define: Define = (create) =>
      create({ id: 'e', description: 'd' })
        .preprocess(() => ({ p: 1 }))
        .analyze(() => {
          throw new Error('boom')
        })
        .generateScore(() => 1)
    const { ours, mastra } = await both(define, [], { output: 'o', runId: 'r1' })
    expect(ours.error.name).toBe('ScorerRunError')
    expect(mastra.error.constructor.name).toBe('ScorerRunError')
    for (const key of [
      'message',
      'failedStep',
      'completedSteps',
      'result',
      'id',
      'domain',
      'category',
    ] as const) {
      expect(ours.error[key]).toEqual(mastra.error[key])
    }
    expect(ours.error.details).toEqual(mastra.error.details)
  })

  it('a judge 401 in generateScore: same failed judge record in the partial result', async () => {
    const unauthorized = () =>
      new APICallError({
        message: 'bad key',
        url: 'http://x',
        requestBodyValues: {},
        statusCode: 401,
        isRetryable: false,
      })
    const define: Define = (create, model) =>
      create({ id: 'a', description: 'd', judge: { model, instructions: 'i' } })
        .preprocess(() => ({ p: 1 }))
        .generateScore({ description: 's', createPrompt: () => 'Score it' })
    const { ours, mastra } = await both(define, [unauthorized()], { output: 'o', runId: 'r' })
    expect(ours.error.failedStep).toBe(mastra.error.failedStep)
    expect(ours.error.completedSteps).toEqual(mastra.error.completedSteps)
    expect(ours.error.message).toBe(mastra.error.message)
    // One difference, deliberate: for a request whose every call failed Mastra reports
    // modelCallCount 0 (it counts calls that returned); tracescore counts the calls it made.
    const ourRecord = ours.error.result.judge.generateScore.executions[0]
    const mastraRecord = mastra.error.result.judge.generateScore.executions[0]
    expect(ourRecord.modelCallCount).toBe(1)
    expect(mastraRecord.modelCallCount).toBe(0)
    ourRecord.modelCallCount = 0
    expect(comparable(ours.error.result)).toEqual(comparable(mastra.error.result))
  })

  it('missing generateScore: both refuse with the same message', async () => {
    const define: Define = (create) => create({ id: 'm', description: 'd' }).preprocess(() => 1)
    const { ours, mastra } = await both(define, [], { output: 'o' })
    expect(ours.error.message).toBe(mastra.error.message)
    expect(ours.error.id).toBe(mastra.error.id)
    expect(ours.error.details).toEqual(mastra.error.details)
  })

  it("Mastra's own StreamErrorRetryProcessor works as an error processor of our judge", async () => {
    const { StreamErrorRetryProcessor: MastraRetry } = await import('@mastra/core/processors')
    const busy = () =>
      new APICallError({
        message: 'busy',
        url: 'http://x',
        requestBodyValues: {},
        statusCode: 503,
        isRetryable: true,
      })
    const define: Define = (create, model) =>
      create({
        id: 'mr',
        description: 'd',
        judge: {
          model,
          instructions: 'i',
          errorProcessors: [new MastraRetry({ maxRetries: 2 })],
          maxProcessorRetries: 2,
        },
      }).generateScore({ description: 's', createPrompt: () => 'p' })
    const { ours, mastra } = await both(define, [busy(), busy(), '{"score":0.5}'], {
      output: 'o',
      runId: 'r',
    })
    expect(ours.result?.score).toBe(0.5)
    expect(mastra.result?.score).toBe(0.5)
    expect(ours.judge.calls).toHaveLength(3)
    expect(mastra.judge.calls).toHaveLength(3)
  })

  describe('deliberate differences (the seeds win over Mastra’s code)', () => {
    const alwaysRetry = (): Processor => ({ id: 'always', processAPIError: () => ({ retry: true }) })
    const transient = () =>
      new APICallError({
        message: 'busy',
        url: 'http://x',
        requestBodyValues: {},
        statusCode: 503,
        isRetryable: true,
      })

    it('maxProcessorRetries default: seed 10 (11 calls) vs Mastra code 3 (4 calls)', async () => {
      const define: Define = (create, model) =>
        create({
          id: 'r',
          description: 'd',
          judge: { model, instructions: 'i', errorProcessors: [alwaysRetry()] },
        }).generateScore({ description: 's', createPrompt: () => 'p' })
      const { ours, mastra } = await both(define, [transient()], { output: 'o', runId: 'r' })
      expect(ours.error).toBeDefined()
      expect(mastra.error).toBeDefined()
      expect(ours.judge.calls).toHaveLength(11)
      expect(mastra.judge.calls).toHaveLength(4)
    })

    it('an explicit maxProcessorRetries gives the same number of calls when the request recovers', async () => {
      const define: Define = (create, model) =>
        create({
          id: 'r',
          description: 'd',
          judge: { model, instructions: 'i', errorProcessors: [alwaysRetry()], maxProcessorRetries: 2 },
        }).generateScore({ description: 's', createPrompt: () => 'p' })
      const { ours, mastra } = await both(define, [transient(), transient(), '{"score":1}'], {
        output: 'o',
        runId: 'r',
      })
      expect(ours.result?.score).toBe(1)
      expect(mastra.result?.score).toBe(1)
      expect(ours.judge.calls).toHaveLength(3)
      expect(mastra.judge.calls).toHaveLength(3)
      expect(comparable(ours.result)).toEqual(comparable(mastra.result))
    })

    it('calculateScore: tracescore asks for the outputSchema and computes the score; Mastra ignores both', async () => {
      const define: Define = (create, model) =>
        create({
          id: 'c',
          description: 'd',
          judge: { model, instructions: 'i', jsonPromptInjection: false },
        }).generateScore({
          description: 's',
          outputSchema: z.object({ verdicts: z.array(z.boolean()) }),
          createPrompt: () => 'Verdicts?',
          calculateScore: ({ analyzeStepResult }: any) =>
            analyzeStepResult.verdicts.filter(Boolean).length / analyzeStepResult.verdicts.length,
        })
      const turn: JudgeTurn = (call) =>
        JSON.stringify(
          Object.keys((call.responseFormat as any).schema.properties).includes('verdicts')
            ? { verdicts: [true, false, true, true] }
            : { score: 0.1 },
        )
      const { ours, mastra } = await both(define, [turn], { output: 'o', runId: 'r' })
      expect(ours.result?.score).toBe(0.75)
      expect(mastra.result?.score).toBe(0.1)
      expect(Object.keys((received(mastra.judge)[0]!.responseFormat as any).schema.properties)).toEqual([
        'score',
      ])
    })
  })
})
