import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../config/define-config.ts'
import { createScorer } from './create-scorer.ts'
import { judgeModel } from './governed-judge-model.ts'
import { createJudge, currentJudge, withJudge } from './judge.ts'
import type { JudgeLimiter } from './judge-limiter.ts'
import { scoreRun } from './score-run.ts'
import { agentRunFixture } from './testing/agent-run-fixture.ts'
import { scriptedJudge } from './testing/scripted-judge.ts'
import { TokenBudget } from './token-budget.ts'

const run = agentRunFixture()

/** A limiter that only counts the calls it was asked to schedule. */
function countingLimiter(): JudgeLimiter & { scheduled: number } {
  const limiter = {
    scheduled: 0,
    schedule: <T>(_key: unknown, call: () => Promise<T>) => {
      limiter.scheduled++
      return call()
    },
  }
  return limiter
}

// Scorers are made once, before any judge exists: one with a prompt step naming a model id, one
// calling a `judgeModel()` model itself (as `@mastra/evals` scorers do).
const prompted = createScorer({
  id: 'prompted',
  description: 'asks the judge through a prompt step',
  judge: { model: 'acme/judge', instructions: 'Judge.' },
}).generateScore({ description: 'score', createPrompt: () => 'Rate it.' })
const governed = judgeModel('acme/judge')
const selfCalling = {
  id: 'self-calling',
  run: async () => {
    const result = await governed.doGenerate({
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'Rate it.' }] }],
    })
    return { score: JSON.parse(result.content[0].text).score as number }
  },
}
const entries = resolveConfig(
  { scorers: { prompted: { scorer: prompted }, 'self-calling': { scorer: selfCalling } } },
  {},
).scorers

describe('judges of two pipelines in one process', () => {
  it('score with their own model, limiter and budget, at the same time', async () => {
    const answersA = scriptedJudge(['{"score":0.25}'])
    const answersB = scriptedJudge(['{"score":0.75}'])
    const limiterA = countingLimiter()
    const limiterB = countingLimiter()
    const judgeA = createJudge({
      resolveModel: () => answersA.model,
      limiter: limiterA,
      budget: new TokenBudget({ prompted: 1 }),
    })
    const judgeB = createJudge({ resolveModel: () => answersB.model, limiter: limiterB })
    const scores = (decisions: { scorer: string; outcome: string; record?: { score?: number } }[]) =>
      Object.fromEntries(decisions.map((d) => [d.scorer, d.record?.score ?? d.outcome]))

    const [a, b] = await Promise.all([
      scoreRun(run, entries, { judge: judgeA }),
      scoreRun(run, entries, { judge: judgeB }),
    ])
    expect(scores(a)).toEqual({ prompted: 0.25, 'self-calling': 0.25 })
    expect(scores(b)).toEqual({ prompted: 0.75, 'self-calling': 0.75 })
    expect([answersA.calls.length, answersB.calls.length]).toEqual([2, 2])
    expect([limiterA.scheduled, limiterB.scheduled]).toEqual([2, 2])

    // A's budget (1 token a day) is spent; B has none: its scorer goes on.
    const [againA, againB] = await Promise.all([
      scoreRun(run, entries, { judge: judgeA }),
      scoreRun(run, entries, { judge: judgeB }),
    ])
    expect(scores(againA)).toEqual({ prompted: 'skipped-budget', 'self-calling': 0.25 })
    expect(scores(againB)).toEqual({ prompted: 0.75, 'self-calling': 0.75 })
  })

  it('leaves no judge behind after the scoring: outside it the default judge applies', async () => {
    const judge = createJudge({ timeoutMs: 5 })
    await withJudge(judge, async () => {
      await Promise.resolve()
      expect(currentJudge()).toBe(judge)
    })
    expect(currentJudge()).not.toBe(judge)
    expect(currentJudge().limiter).toBeUndefined()
  })
})
