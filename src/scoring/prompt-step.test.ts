import { APICallError } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createScorer } from './create-scorer.ts'
import type { JudgeConfig } from './judge-config.ts'
import type { Processor } from './processor.ts'
import { ScorerRunError } from './scorer-run-error.ts'
import { scriptedJudge } from './testing/scripted-judge.ts'

const SCORE_JSON_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: { score: { type: 'number' } },
  required: ['score'],
  additionalProperties: false,
}

const transient = () =>
  new APICallError({
    message: 'overloaded',
    url: 'http://x',
    requestBodyValues: {},
    statusCode: 503,
    isRetryable: true,
  })

/** An error processor that asks for a retry every time and counts how often it was asked. */
function alwaysRetry(): Processor & { seen: number[] } {
  const seen: number[] = []
  return {
    id: 'always-retry',
    seen,
    processAPIError: ({ retryCount }) => {
      seen.push(retryCount)
      return { retry: true }
    },
  }
}

/** A scorer (id `s`) judged as `judge` says. */
const judgedScorer = (judge: JudgeConfig) => createScorer({ id: 's', description: 'd', judge })

describe('prompt-object steps', () => {
  it('analyze: the judge gets instructions as system message, the prompt as user message, and its parsed answer is analyzeStepResult', async () => {
    const judge = scriptedJudge(['{"hasSources":true,"sources":["Wikipedia"]}'])
    const s = createScorer({
      id: 'q',
      description: 'd',
      judge: { model: judge.model, instructions: 'You are strict.' },
    })
      .analyze({
        description: 'detect sources',
        outputSchema: z.object({ hasSources: z.boolean(), sources: z.array(z.string()) }),
        createPrompt: ({ run }) => `Response: ${run.output}`,
      })
      .generateScore(({ results }) => (results.analyzeStepResult.hasSources ? 1 : 0))
    const result = await s.run({ output: 'Paris [1] Source: Wikipedia' })
    expect(result.score).toBe(1)
    expect(result.analyzeStepResult).toEqual({ hasSources: true, sources: ['Wikipedia'] })
    expect(result.analyzePrompt).toBe('Response: Paris [1] Source: Wikipedia')
    expect(judge.calls).toHaveLength(1)
    const prompt = judge.calls[0]!.prompt
    expect(prompt.map((m) => m.role)).toEqual(['system', 'user'])
    expect(judge.system(0)).toBe('You are strict.')
    expect(judge.userText(0)).toContain('Response: Paris [1] Source: Wikipedia')
    expect(result.judge?.analyze?.executions).toEqual([
      {
        status: 'success',
        prompt: 'Response: Paris [1] Source: Wikipedia',
        output: { hasSources: true, sources: ['Wikipedia'] },
        judgeModelId: 'mock-judge',
        judgeProvider: 'mock-provider',
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
        attemptCount: 1,
        modelCallCount: 1,
        durationMs: expect.any(Number),
      },
    ])
  })

  it('generateScore without calculateScore asks for { score: number } and uses that number', async () => {
    const judge = scriptedJudge(['{"score":0.7}'])
    const s = judgedScorer({
      model: judge.model,
      instructions: 'i',
      jsonPromptInjection: false,
    }).generateScore({ description: 'score it', createPrompt: () => 'Rate it' })
    const result = await s.run({ output: 'o' })
    expect(result.score).toBe(0.7)
    expect(result.generateScorePrompt).toBe('Rate it')
    expect(judge.calls[0]!.responseFormat).toEqual({ type: 'json', schema: SCORE_JSON_SCHEMA })
    expect(result.judge?.generateScore?.executions[0]?.output).toBe(0.7)
  })

  it('generateScore with calculateScore: the judge answers with outputSchema and calculateScore gets the answer as analyzeStepResult', async () => {
    const judge = scriptedJudge(['{"verdicts":["yes","no","yes","yes"]}'])
    let args: Record<string, unknown> | undefined
    const s = judgedScorer({ model: judge.model, instructions: 'i', jsonPromptInjection: false })
      .analyze(() => ({ fromAnalyze: true }))
      .generateScore({
        description: 'verdicts',
        outputSchema: z.object({ verdicts: z.array(z.enum(['yes', 'no'])) }),
        createPrompt: () => 'Give verdicts',
        calculateScore: (ctx) => {
          args = ctx as never
          const { verdicts } = ctx.analyzeStepResult
          return verdicts.filter((v) => v === 'yes').length / verdicts.length
        },
      })
    const result = await s.run({ output: 'o', runId: 'r' })
    expect(result.score).toBe(0.75)
    const schema = (judge.calls[0]!.responseFormat as { schema: { properties: object } }).schema
    expect(Object.keys(schema.properties)).toEqual(['verdicts'])
    expect(args?.analyzeStepResult).toEqual({ verdicts: ['yes', 'no', 'yes', 'yes'] })
    expect(args?.judgeOutput).toEqual({ verdicts: ['yes', 'no', 'yes', 'yes'] })
    expect(args?.results).toEqual({ analyzeStepResult: { fromAnalyze: true } })
    expect((args?.run as { runId: string } | undefined)?.runId).toBe('r')
    // The judge record keeps the answer calculateScore consumed; the result keeps the analyze step's own value.
    expect(result.judge?.generateScore?.executions[0]?.output).toEqual({
      verdicts: ['yes', 'no', 'yes', 'yes'],
    })
    expect(result.analyzeStepResult).toEqual({ fromAnalyze: true })
  })

  it('calculateScore throwing fails the step but keeps the judge record and its tokens', async () => {
    const judge = scriptedJudge(['{"verdicts":[]}'])
    const error = (await judgedScorer({ model: judge.model, instructions: 'i' })
      .generateScore({
        description: 'v',
        outputSchema: z.object({ verdicts: z.array(z.string()) }),
        createPrompt: () => 'p',
        calculateScore: ({ analyzeStepResult }) => {
          if (analyzeStepResult.verdicts.length === 0) throw new Error('no verdicts')
          return 1
        },
      })
      .run({ output: 'o' })
      .catch((e: unknown) => e)) as ScorerRunError
    expect(error.failedStep).toBe('generateScore')
    expect(error.message).toBe('Scorer Run Failed: no verdicts')
    expect(error.result?.judge?.generateScore?.executions[0]).toMatchObject({
      status: 'success',
      output: { verdicts: [] },
      usage: { totalTokens: 15 },
    })
  })

  it('generateReason asks for plain text: no response format, no schema in the prompt; receives score', async () => {
    const judge = scriptedJudge(['Because it is good.'])
    const s = judgedScorer({ model: judge.model, instructions: 'Explain.' })
      .generateScore(() => 0.9)
      .generateReason({ description: 'why', createPrompt: ({ score }) => `Explain the score ${score}` })
    const result = await s.run({ output: 'o' })
    expect(result.reason).toBe('Because it is good.')
    expect(result.generateReasonPrompt).toBe('Explain the score 0.9')
    expect(judge.calls[0]!.responseFormat).toBeUndefined()
    expect(judge.system(0)).toBe('Explain.')
    expect(judge.userText(0)).toBe('Explain the score 0.9')
    expect(result.judge?.generateReason?.executions[0]).toMatchObject({
      status: 'success',
      output: 'Because it is good.',
    })
  })

  it('a step judge overrides the scorer judge field by field', async () => {
    const main = scriptedJudge(['{"a":1}'])
    const other = scriptedJudge(['{"score":0.2}'], { modelId: 'other-judge' })
    const s = judgedScorer({
      model: main.model,
      instructions: 'main instructions',
      jsonPromptInjection: 'system',
    })
      .analyze({ description: 'a', outputSchema: z.object({ a: z.number() }), createPrompt: () => 'p1' })
      .generateScore({ description: 's', createPrompt: () => 'p2', judge: { model: other.model } })
    const result = await s.run({ output: 'o' })
    expect(result.score).toBe(0.2)
    expect(main.calls).toHaveLength(1)
    expect(other.calls).toHaveLength(1)
    // instructions and jsonPromptInjection ('system') are inherited by the step's judge
    expect(other.system(0)).toMatch(/^main instructions\n\nJSON schema:\n/)
    expect(result.judge?.generateScore?.executions[0]?.judgeModelId).toBe('other-judge')
  })

  it('step processor arrays replace the scorer’s; the step inherits maxProcessorRetries when it omits it', async () => {
    const scorerProcessor = alwaysRetry()
    const stepProcessor = alwaysRetry()
    const judge = scriptedJudge([transient(), transient(), '{"score":1}'])
    const s = judgedScorer({
      model: judge.model,
      instructions: 'i',
      errorProcessors: [scorerProcessor],
      maxProcessorRetries: 2,
    }).generateScore({
      description: 's',
      createPrompt: () => 'p',
      judge: { errorProcessors: [stepProcessor] },
    })
    const result = await s.run({ output: 'o' })
    expect(result.score).toBe(1)
    expect(scorerProcessor.seen).toEqual([])
    expect(stepProcessor.seen).toEqual([0, 1])
    expect(result.judge?.generateScore?.executions[0]).toMatchObject({ attemptCount: 1, modelCallCount: 3 })
  })

  it('only the failed judge request is retried: a completed step is not re-run', async () => {
    const processor = alwaysRetry()
    let analyzeCalls = 0
    const judge = scriptedJudge(['{"score":0.5}', transient(), 'Reason text'])
    const s = judgedScorer({
      model: judge.model,
      instructions: 'i',
      errorProcessors: [processor],
      maxProcessorRetries: 2,
    })
      .analyze(() => {
        analyzeCalls++
        return 1
      })
      .generateScore({ description: 's', createPrompt: () => 'score prompt' })
      .generateReason({ description: 'r', createPrompt: () => 'reason prompt' })
    const result = await s.run({ output: 'o' })
    expect(result.reason).toBe('Reason text')
    expect(analyzeCalls).toBe(1)
    expect(judge.calls.map((_, i) => judge.userText(i).split('\n')[0])).toEqual([
      'score prompt',
      'reason prompt',
      'reason prompt',
    ])
    expect(result.judge?.generateScore?.executions[0]?.modelCallCount).toBe(1)
    expect(result.judge?.generateReason?.executions[0]?.modelCallCount).toBe(2)
  })

  it('a failed judge request rejects with ScorerRunError carrying the failed judge execution', async () => {
    const unauthorized = new APICallError({
      message: 'Incorrect API key',
      url: 'http://x',
      requestBodyValues: {},
      statusCode: 401,
      isRetryable: false,
    })
    const judge = scriptedJudge(['{"a":1}', unauthorized])
    const s = judgedScorer({ model: judge.model, instructions: 'i' })
      .analyze({ description: 'a', outputSchema: z.object({ a: z.number() }), createPrompt: () => 'p1' })
      .generateScore({ description: 's', createPrompt: () => 'p2' })
    const error = (await s.run({ output: 'o', runId: 'r' }).catch((e: unknown) => e)) as ScorerRunError
    expect(error).toBeInstanceOf(ScorerRunError)
    expect(error.failedStep).toBe('generateScore')
    expect(error.completedSteps).toEqual(['analyze'])
    expect(error.cause).toBe(unauthorized)
    expect(error.message).toBe('Scorer Run Failed: Incorrect API key')
    expect(error.result?.analyzeStepResult).toEqual({ a: 1 })
    expect(error.result?.judge?.analyze?.executions[0]?.status).toBe('success')
    expect(error.result?.judge?.generateScore?.executions).toEqual([
      {
        status: 'failed',
        prompt: 'p2',
        judgeModelId: 'mock-judge',
        judgeProvider: 'mock-provider',
        attemptCount: 1,
        modelCallCount: 1,
        durationMs: expect.any(Number),
        finishReason: 'error',
        error: { name: 'AI_APICallError', message: 'Incorrect API key' },
      },
    ])
  })

  it('createPrompt may be async and sees the previous results', async () => {
    const judge = scriptedJudge(['{"score":1}'])
    const s = judgedScorer({ model: judge.model, instructions: 'i' })
      .preprocess(() => ({ text: 'hello' }))
      .generateScore({
        description: 's',
        createPrompt: async ({ results }) => `Text: ${results.preprocessStepResult.text}`,
      })
    const result = await s.run({ output: 'o' })
    expect(result.generateScorePrompt).toBe('Text: hello')
    expect(judge.userText(0)).toMatch(/^Text: hello/)
  })
})
