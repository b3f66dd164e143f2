import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createScorer } from './create-scorer.ts'
import { notScorable } from './not-scorable.ts'
import { ScorerConfigError } from './scorer-config-error.ts'
import { ScorerRunError } from './scorer-run-error.ts'
import { scriptedJudge } from './testing/scripted-judge.ts'

const RESULT_KEYS = [
  'generateScorePrompt',
  'reason',
  'generateReasonPrompt',
  'preprocessStepResult',
  'preprocessPrompt',
  'analyzeStepResult',
  'analyzePrompt',
]

describe('createScorer builder', () => {
  it('defaults name to id and keeps description', () => {
    const s = createScorer({ id: 'my-scorer', description: 'd' })
    expect(s.id).toBe('my-scorer')
    expect(s.name).toBe('my-scorer')
    expect(s.description).toBe('d')
    expect(createScorer({ id: 'x', name: 'Nice', description: '' }).name).toBe('Nice')
  })

  it('rejects a scorer without id', () => {
    expect(() => createScorer({ id: '', description: 'd' })).toThrow(ScorerConfigError)
  })

  it('is immutable: each step method returns a new scorer and leaves the original alone', async () => {
    const base = createScorer({ id: 's', description: 'd' })
    const withScore = base.generateScore(() => 0.5)
    expect(withScore).not.toBe(base)
    expect(base.getSteps()).toEqual([])
    const a = withScore.generateReason(() => 'A')
    const b = withScore.generateReason(() => 'B')
    expect((await a.run({ output: 'o' })).reason).toBe('A')
    expect((await b.run({ output: 'o' })).reason).toBe('B')
    expect(withScore.getSteps()).toEqual([{ name: 'generateScore', type: 'function' }])
  })

  it('rejects run() without generateScore before any step or prepareRun runs', async () => {
    let ran = false
    const s = createScorer({
      id: 's',
      description: 'd',
      prepareRun: (run) => {
        ran = true
        return run
      },
    }).preprocess(() => {
      ran = true
      return 1
    })
    const error = await s.run({ output: 'o' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ScorerConfigError)
    expect((error as ScorerConfigError).id).toBe('MASTR_SCORER_FAILED_TO_RUN_MISSING_GENERATE_SCORE')
    expect((error as Error).message).toBe('Cannot execute pipeline without generateScore() step')
    expect(ran).toBe(false)
  })

  it('rejects a step that is neither a function nor a prompt object, and prompt preprocess without schema', () => {
    const s = createScorer({ id: 's', description: 'd' })
    expect(() => s.analyze({ description: 'x' } as never)).toThrow(/function or a prompt object/)
    expect(() => s.preprocess({ description: 'x', createPrompt: () => 'p' } as never)).toThrow(/outputSchema/)
  })

  it('lists steps with their kind and description', () => {
    const s = createScorer({ id: 's', description: 'd' })
      .preprocess(() => 1)
      .analyze({
        description: 'judge it',
        outputSchema: z.object({ a: z.number() }),
        createPrompt: () => 'p',
      })
      .generateScore(() => 1)
    expect(s.getSteps()).toEqual([
      { name: 'preprocess', type: 'function' },
      { name: 'analyze', type: 'prompt', description: 'judge it' },
      { name: 'generateScore', type: 'function' },
    ])
  })
})

describe('scorer.run with function steps', () => {
  it('passes results along, score into generateReason, and returns Mastra’s result shape', async () => {
    const seen: unknown[] = []
    const s = createScorer({ id: 's', description: 'd' })
      .preprocess(({ run, results }) => {
        seen.push({ ...results })
        return { words: String(run.output).split(' ').length }
      })
      .analyze(async ({ results }) => {
        seen.push({ ...results })
        return { long: results.preprocessStepResult.words > 2 }
      })
      .generateScore(({ results }) => {
        seen.push({ ...results })
        return results.analyzeStepResult.long ? 1 : 0
      })
      .generateReason(({ results, score }) => {
        seen.push({ ...results })
        return `score ${score}`
      })
    const result = await s.run({
      input: 'i',
      output: 'a b c',
      groundTruth: 'g',
      runId: 'r1',
      requestContext: { a: 1 },
    })
    expect(Object.keys(result)).toEqual([
      'input',
      'output',
      'groundTruth',
      'runId',
      'requestContext',
      'score',
      ...RESULT_KEYS,
    ])
    expect(result).toMatchObject({
      runId: 'r1',
      score: 1,
      reason: 'score 1',
      preprocessStepResult: { words: 3 },
      analyzeStepResult: { long: true },
      preprocessPrompt: undefined,
      analyzePrompt: undefined,
    })
    expect('judge' in result).toBe(false)
    expect(seen).toEqual([
      {},
      { preprocessStepResult: { words: 3 } },
      { preprocessStepResult: { words: 3 }, analyzeStepResult: { long: true } },
      { preprocessStepResult: { words: 3 }, analyzeStepResult: { long: true }, generateScoreStepResult: 1 },
    ])
  })

  it('function steps never call the judge, even when one is configured', async () => {
    const judge = scriptedJudge(['{"score":1}'])
    const s = createScorer({ id: 's', description: 'd', judge: { model: judge.model, instructions: 'i' } })
      .preprocess(() => 1)
      .analyze(() => 2)
      .generateScore(() => 0.3)
      .generateReason(() => 'r')
    const result = await s.run({ output: 'o' })
    expect(result.score).toBe(0.3)
    expect(judge.calls).toHaveLength(0)
    expect('judge' in result).toBe(false)
  })

  it('concurrent runs of one scorer keep their own state', async () => {
    const s = createScorer({ id: 's', description: 'd' })
      .preprocess(async ({ run }) => {
        await new Promise((r) => setImmediate(r))
        return { n: Number(run.output) }
      })
      .generateScore(({ results }) => results.preprocessStepResult.n / 100)
      .generateReason(({ score, run }) => `${run.runId}:${score}`)
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => s.run({ output: String(i), runId: `r${i}` })),
    )
    expect(results.map((r) => r.reason)).toEqual(Array.from({ length: 50 }, (_, i) => `r${i}:${i / 100}`))
  })

  it('runs steps in chaining order, not in the conventional order', async () => {
    const order: string[] = []
    const s = createScorer({ id: 's', description: 'd' })
      .generateScore(() => {
        order.push('generateScore')
        return 1
      })
      .preprocess(() => {
        order.push('preprocess')
        return 'p'
      })
    await s.run({ output: 'o' })
    expect(order).toEqual(['generateScore', 'preprocess'])
  })

  it('generates a runId when none is given and strips _internal', async () => {
    const s = createScorer({ id: 's', description: 'd' }).generateScore(({ run }) =>
      run.runId.length > 0 ? 1 : 0,
    )
    const result = await s.run({ output: 'o', _internal: { emitObservabilityScore: false } })
    expect(result.runId).toMatch(/^[0-9a-f-]{36}$/)
    expect(result.score).toBe(1)
    expect('_internal' in result).toBe(false)
  })

  it('prepareRun (async) runs first and replaces the run for steps and in the result', async () => {
    const s = createScorer({
      id: 's',
      description: 'd',
      prepareRun: async (run) => ({ ...run, output: 'prepared', groundTruth: undefined }),
    }).generateScore(({ run }) => (run.output === 'prepared' && run.groundTruth === undefined ? 1 : 0))
    const result = await s.run({ output: 'raw', groundTruth: 'secret', runId: 'r' })
    expect(result.score).toBe(1)
    expect(result.output).toBe('prepared')
    expect(result.groundTruth).toBeUndefined()
  })

  it('notScorable stops the pipeline: no score key, later steps and judge never run', async () => {
    const judge = scriptedJudge(['{"score":1}'])
    let later = false
    const s = createScorer({ id: 's', description: 'd', judge: { model: judge.model, instructions: 'i' } })
      .preprocess(() => ({ kept: true }))
      .analyze(() => notScorable('no tool call'))
      .generateScore({ description: 'score', createPrompt: () => 'p' })
      .generateReason(() => {
        later = true
        return 'r'
      })
    const result = await s.run({ output: 'o' })
    expect(result.notScorable).toEqual({ step: 'analyze', reason: 'no tool call' })
    expect('score' in result).toBe(false)
    expect(result.preprocessStepResult).toEqual({ kept: true })
    expect(result.analyzeStepResult).toBeUndefined()
    expect(later).toBe(false)
    expect(judge.calls).toHaveLength(0)
  })

  it('a failing step rejects with ScorerRunError naming the step, the completed steps and the partial result', async () => {
    const boom = new Error('boom')
    const s = createScorer({ id: 'fails', description: 'd' })
      .preprocess(() => ({ p: 1 }))
      .analyze(() => {
        throw boom
      })
      .generateScore(() => 1)
    const error = (await s.run({ output: 'o', runId: 'r1' }).catch((e: unknown) => e)) as ScorerRunError
    expect(error).toBeInstanceOf(ScorerRunError)
    expect(error.message).toBe('Scorer Run Failed: boom')
    expect(error.failedStep).toBe('analyze')
    expect(error.completedSteps).toEqual(['preprocess'])
    expect(error.cause).toBe(boom)
    expect(error.result).toEqual({ output: 'o', runId: 'r1', preprocessStepResult: { p: 1 } })
    expect(error.details).toEqual({
      scorerId: 'fails',
      steps: 'preprocess, analyze, generateScore',
      failedStep: 'analyze',
      completedSteps: 'preprocess',
    })
  })

  it('a first step failing gives no partial result', async () => {
    const s = createScorer({ id: 's', description: 'd' }).generateScore(() => {
      throw new Error('x')
    })
    const error = (await s.run({ output: 'o' }).catch((e: unknown) => e)) as ScorerRunError
    expect(error.failedStep).toBe('generateScore')
    expect(error.completedSteps).toEqual([])
    expect(error.result).toBeUndefined()
  })

  it('a prompt step without model or instructions fails that step with a clear error', async () => {
    const s = createScorer({ id: 's', description: 'd' })
      .preprocess(() => 1)
      .generateScore({ description: 'score', createPrompt: () => 'p' })
    const error = (await s.run({ output: 'o' }).catch((e: unknown) => e)) as ScorerRunError
    expect(error.failedStep).toBe('generateScore')
    expect(error.message).toBe('Scorer Run Failed: Step "generateScore" requires a model and instructions')
    expect((error.cause as ScorerConfigError).id).toBe(
      'MASTR_SCORER_FAILED_TO_RUN_MISSING_MODEL_OR_INSTRUCTIONS',
    )
  })
})
