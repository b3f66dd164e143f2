import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../config/define-config.ts'
import type { AgentRun } from '../model/index.ts'
import { createJudge } from './judge.ts'
import { shouldSample } from './sampling.ts'
import { judgeUsageOf, matchesFilter, scoreRun } from './score-run.ts'
import { agentRunFixture } from './testing/agent-run-fixture.ts'
import { TokenBudget } from './token-budget.ts'

const run = agentRunFixture

const seen: unknown[] = []
const constant = (id: string, score: number) => ({
  id,
  run: async (input: unknown) => {
    seen.push(input)
    return { score, reason: `always ${score}` }
  },
})

function entries(input: Record<string, unknown>) {
  return resolveConfig({ scorers: input }, {}).scorers
}

describe('scoreRun', () => {
  it('scores with every applicable scorer and builds the score record', async () => {
    const decisions = await scoreRun(run(), entries({ a: { scorer: constant('a', 0.7) } }), { now: () => 42 })
    expect(decisions).toHaveLength(1)
    expect(decisions[0]!.outcome).toBe('scored')
    expect(decisions[0]!.record).toMatchObject({
      traceId: run().traceId,
      spanId: run().spanId,
      runId: `${run().traceId}-${run().spanId}`,
      scorerId: 'a',
      score: 0.7,
      reason: 'always 0.7',
      scorerKind: 'code',
      agentName: 'support',
      timestampMs: 42,
      samplingRate: 1,
    })
  })

  it('flags the record of a run rebuilt from an incomplete trace', async () => {
    const [complete] = await scoreRun(run(), entries({ a: { scorer: constant('a', 1) } }))
    const [partial] = await scoreRun(run({ incomplete: true }), entries({ a: { scorer: constant('a', 1) } }))
    expect(complete!.record!.incomplete).toBeUndefined()
    expect(partial!.record!.incomplete).toBe(true)
  })

  it('filters by agent, service, convention, status and predicate (fail closed on throw)', () => {
    expect(matchesFilter(run(), { agentNames: ['support'] })).toBe(true)
    expect(matchesFilter(run(), { agentNames: ['other'] })).toBe(false)
    expect(matchesFilter(run(), { services: ['shop'] })).toBe(true)
    expect(matchesFilter(run(), { services: ['bank'] })).toBe(false)
    expect(matchesFilter(run(), { conventions: ['mastra'] })).toBe(false)
    expect(matchesFilter(run({ status: 'error' }), { status: 'error' })).toBe(true)
    expect(matchesFilter(run(), { where: (r) => r.agentId === 'agt_1' })).toBe(true)
    expect(
      matchesFilter(run(), {
        where: () => {
          throw new Error('bad predicate')
        },
      }),
    ).toBe(false)
  })

  it('samples deterministically by trace id with the hash rule, and always-score rules override it', async () => {
    const ids = Array.from({ length: 200 }, (_, i) => i.toString(16).padStart(32, '0'))
    const config = entries({
      half: { scorer: constant('half', 1), sampling: { type: 'ratio', rate: 0.5 } },
      errs: {
        scorer: constant('errs', 1),
        sampling: { type: 'ratio', rate: 0 },
        alwaysScore: { errors: true },
      },
    })
    let scored = 0
    for (const traceId of ids) {
      const [half, errs] = await scoreRun(
        run({ traceId, status: traceId.endsWith('7') ? 'error' : 'ok' }),
        config,
      )
      expect(half!.outcome).toBe(shouldSample(traceId, 0.5) ? 'scored' : 'sampled-out')
      expect(errs!.outcome).toBe(traceId.endsWith('7') ? 'scored' : 'sampled-out')
      if (half!.outcome === 'scored') scored++
    }
    expect(scored).toBeGreaterThan(60)
    expect(scored).toBeLessThan(140)
  })

  it('records not-scorable and failures, with the error in the record', async () => {
    const config = entries({
      ns: {
        scorer: { id: 'ns', run: async () => ({ notScorable: { step: 'analyze', reason: 'no tools' } }) },
      },
      boom: {
        scorer: {
          id: 'boom',
          run: async () => {
            throw Object.assign(new Error('judge down'), { name: 'ScorerRunError' })
          },
        },
      },
      nan: { scorer: { id: 'nan', run: async () => ({ score: 'high' }) } },
    })
    const [ns, boom, nan] = await scoreRun(run(), config)
    expect(ns).toMatchObject({ outcome: 'not-scorable', detail: 'no tools' })
    expect(ns!.record).toBeUndefined()
    expect(boom).toMatchObject({
      outcome: 'failed',
      record: { error: { type: 'ScorerRunError', message: 'judge down' } },
    })
    expect(nan!.outcome).toBe('failed')
    expect(nan!.record!.error!.message).toContain('non-numeric score')
  })

  it('skips a scorer for budget once its daily judge tokens are spent, and resets the next day', async () => {
    let now = Date.UTC(2026, 10, 30, 12)
    const judge = createJudge({ budget: new TokenBudget({ judge: 100 }, () => now) })
    const judged = {
      id: 'judge',
      run: async () => ({
        score: 1,
        judge: {
          generateScore: {
            executions: [{ judgeModelId: 'm', usage: { inputTokens: 50, outputTokens: 30 } }],
          },
        },
      }),
    }
    const config = entries({ judge: { scorer: judged, dailyTokenBudget: 100 } })
    const outcomes = []
    for (let i = 0; i < 3; i++) outcomes.push((await scoreRun(run(), config, { judge }))[0]!.outcome)
    expect(outcomes).toEqual(['scored', 'scored', 'skipped-budget'])
    now += 86_400_000
    expect((await scoreRun(run(), config, { judge }))[0]!.outcome).toBe('scored')
  })

  it('redacts the run before the scorer sees it, leaving the original intact', async () => {
    const original = run({
      input: {
        inputMessages: [
          {
            id: 'm1',
            role: 'user',
            createdAt: new Date(0),
            content: {
              format: 2,
              parts: [{ type: 'text', text: 'mail me at a@b.io' }],
              content: 'mail me at a@b.io',
            },
          },
        ],
        rememberedMessages: [],
        systemMessages: [],
        taggedSystemMessages: {},
      },
    })
    seen.length = 0
    await scoreRun(original, entries({ r: { scorer: constant('r', 1), redact: { builtins: ['email'] } } }))
    const input = (seen[0] as { input: AgentRun['input'] }).input
    expect(input.inputMessages[0]!.content.content).toBe('mail me at [REDACTED:email]')
    expect(original.input.inputMessages[0]!.content.content).toBe('mail me at a@b.io')
  })

  it('sums judge usage over steps and executions', () => {
    expect(
      judgeUsageOf({
        judge: {
          analyze: {
            executions: [
              { judgeModelId: 'x/y', modelCallCount: 2, usage: { inputTokens: 10, outputTokens: 5 } },
            ],
          },
          generateReason: {
            executions: [{ judgeModelId: 'x/y', usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } }],
          },
        },
      }),
    ).toEqual({ model: 'x/y', calls: 3, inputTokens: 13, outputTokens: 7, totalTokens: 20 })
    expect(judgeUsageOf({ score: 1 })).toBeUndefined()
  })
})
