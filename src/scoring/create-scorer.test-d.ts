import { describe, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import type { MastraDBMessage, ScorerRunInputForAgent, ScorerRunOutputForAgent } from '../model/message.ts'
import { createScorer, type Scorer } from './create-scorer.ts'
import type { NotScorableOutcome } from './not-scorable.ts'
import { notScorable } from './not-scorable.ts'

declare const model: import('./judge-model.ts').JudgeModel

describe('createScorer types', () => {
  it("type: 'agent' types run.input and run.output as the agent shapes", () => {
    createScorer({ id: 'agent-scorer', description: 'd', type: 'agent' })
      .preprocess(({ run }) => {
        expectTypeOf(run.input).toEqualTypeOf<ScorerRunInputForAgent>()
        expectTypeOf(run.output).toEqualTypeOf<ScorerRunOutputForAgent>()
        expectTypeOf(run.runId).toEqualTypeOf<string>()
        const userMessage = run.input.inputMessages[0]?.content
        expectTypeOf(userMessage).toEqualTypeOf<MastraDBMessage['content'] | undefined>()
        // The seed writes `run.inputData`: no such field on the run.
        // @ts-expect-error inputData does not exist
        void run.inputData
        return { userMessage }
      })
      .generateScore(({ run }) => {
        const response = run.output[0]?.content.content ?? ''
        return response.length > 10 ? 1.0 : 0.5
      })
  })

  it('createScorer<TInput, TOutput> types custom shapes', () => {
    type CustomInput = { query: string; context: string[] }
    type CustomOutput = { answer: string; confidence: number }
    const s = createScorer<CustomInput, CustomOutput>({ id: 'custom', description: 'd' }).generateScore(
      ({ run }) => {
        expectTypeOf(run.input).toEqualTypeOf<CustomInput>()
        expectTypeOf(run.output).toEqualTypeOf<CustomOutput>()
        return run.output.confidence
      },
    )
    // @ts-expect-error output must be a CustomOutput
    void s.run({ input: { query: 'q', context: [] }, output: { answer: 'a' } })
    void s.run({ input: { query: 'q', context: [] }, output: { answer: 'a', confidence: 1 } })
  })

  it('type: { input, output } schemas type the run', () => {
    createScorer({
      id: 'schema-typed',
      description: 'd',
      type: { input: z.object({ q: z.string() }), output: z.object({ a: z.number() }) },
    }).generateScore(({ run }) => {
      expectTypeOf(run.input).toEqualTypeOf<{ q: string }>()
      return run.output.a
    })
  })

  it('results accumulate step by step, typed from functions and output schemas', () => {
    const s = createScorer({ id: 's', description: 'd' })
      .preprocess(async () => ({ words: 3 }))
      .analyze({
        description: 'a',
        outputSchema: z.object({ isGlutenFree: z.boolean(), glutenSources: z.array(z.string()) }),
        createPrompt: ({ results }) => {
          expectTypeOf(results.preprocessStepResult).toEqualTypeOf<{ words: number }>()
          // @ts-expect-error analyze has not run yet
          void results.analyzeStepResult
          return 'p'
        },
      })
      .generateScore(({ results }) => {
        expectTypeOf(results.analyzeStepResult).toEqualTypeOf<{
          isGlutenFree: boolean
          glutenSources: string[]
        }>()
        return results.analyzeStepResult.isGlutenFree ? 1 : 0
      })
      .generateReason(({ score, results }) => {
        expectTypeOf(score).toEqualTypeOf<number>()
        return `${score} ${results.analyzeStepResult.glutenSources.join(', ')}`
      })
    expectTypeOf(s).toExtend<Scorer<'s', any, any, any>>()
    const result = s.run({ output: 'o' })
    expectTypeOf(result).resolves.toHaveProperty('reason').toEqualTypeOf<string | undefined>()
    expectTypeOf(result)
      .resolves.toHaveProperty('analyzeStepResult')
      .toEqualTypeOf<{ isGlutenFree: boolean; glutenSources: string[] } | undefined>()
    expectTypeOf(result).resolves.toHaveProperty('score').toEqualTypeOf<number | undefined>()
    expectTypeOf(result)
      .resolves.toHaveProperty('notScorable')
      .toEqualTypeOf<NotScorableOutcome | undefined>()
  })

  it('notScorable() is removed from the step result type', () => {
    createScorer({ id: 's', description: 'd' })
      .preprocess(({ run }) => (run.output ? { ok: true } : notScorable('empty')))
      .generateScore(({ results }) => {
        expectTypeOf(results.preprocessStepResult).toEqualTypeOf<{ ok: boolean }>()
        return 1
      })
  })

  it('generateScore must produce a number', () => {
    // @ts-expect-error a string is not a score
    createScorer({ id: 's', description: 'd' }).generateScore(() => 'high')
  })

  it('calculateScore receives the judge answer typed from outputSchema', () => {
    createScorer({ id: 's', description: 'd', judge: { model, instructions: 'i' } }).generateScore({
      description: 'verdicts',
      outputSchema: z.object({ verdicts: z.array(z.string()) }),
      createPrompt: () => 'p',
      calculateScore: ({ analyzeStepResult, judgeOutput }) => {
        expectTypeOf(analyzeStepResult).toEqualTypeOf<{ verdicts: string[] }>()
        expectTypeOf(judgeOutput).toEqualTypeOf<{ verdicts: string[] }>()
        return analyzeStepResult.verdicts.length
      },
    })
  })

  it('judge config: model string or instance, step overrides, jsonPromptInjection values', () => {
    createScorer({
      id: 's',
      description: 'd',
      judge: {
        model: 'openai/gpt-5-mini',
        instructions: 'i',
        jsonPromptInjection: 'inline',
        maxProcessorRetries: 2,
      },
    }).generateScore({
      description: 's',
      createPrompt: () => 'p',
      judge: { model, jsonPromptInjection: false },
    })
    createScorer({
      id: 's',
      description: 'd',
      // @ts-expect-error not a jsonPromptInjection value
      judge: { model, instructions: 'i', jsonPromptInjection: 'json' },
    })
  })

  it('prepareRun keeps the run type', () => {
    createScorer({
      id: 'recent-output',
      description: 'd',
      type: 'agent',
      prepareRun: (run) => {
        expectTypeOf(run.output).toEqualTypeOf<ScorerRunOutputForAgent>()
        return { ...run, output: run.output.slice(-1), requestContext: undefined }
      },
    }).generateScore(({ run }) => (run.output.length > 0 ? 1 : 0))
  })
})
