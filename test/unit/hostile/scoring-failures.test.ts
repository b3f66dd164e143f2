/**
 * Scoring never rejects on account of what a trace holds or what a scorer does (issue 11): every
 * failure becomes a `failed` decision for its (run, scorer) pair, with an error record, and the
 * other scorers of the run are still scored. Before, a redaction that overflowed the stack (JSON
 * nested thousands of levels deep in a tool argument) made `scoreTrace` reject, so the CLI exited 1
 * and the service retried the trace forever while its partition waited.
 */
import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../../../src/config/define-config.ts'
import { scoreTrace } from '../../../src/score-trace.ts'
import { createJudge } from '../../../src/scoring/judge.ts'
import { scoreRun } from '../../../src/scoring/score-run.ts'
import { TokenBudget } from '../../../src/scoring/token-budget.ts'
import { extractAgentRuns } from '../../../src/transform/index.ts'
import { deepJsonToolArguments, nestedToolSpans } from '../../helpers/hostile-inputs.ts'

const ok = { id: 'ok', run: async () => ({ score: 1 }) }

function scorers(entries: Record<string, unknown>) {
  return resolveConfig({ scorers: entries }, {}).scorers
}

describe('scoring failures become failed decisions', () => {
  it('a tool argument nested 170,000 levels deep: redaction copies it, a scorer that recurses fails alone', async () => {
    const spans = deepJsonToolArguments(1024 * 1024)
    const recursive = {
      id: 'recursive',
      run: async ({ output }: { output: unknown }) => ({ score: JSON.stringify(output).length }),
    }
    const { decisions } = await scoreTrace(spans, {
      scorers: scorers({
        redacted: { scorer: ok, redact: { builtins: ['email', 'api-key', 'bearer-token', 'card-number'] } },
        recursive: { scorer: recursive, redact: { builtins: ['email'] } },
      }),
    })
    const byScorer = Object.fromEntries(decisions.map((d) => [d.scorer, d]))
    expect(byScorer.redacted!.outcome).toBe('scored')
    expect(byScorer.recursive!.outcome).toBe('failed')
    expect(byScorer.recursive!.record!.error).toEqual({
      type: 'RangeError',
      message: expect.stringContaining('call stack'),
    })
  })

  const [run] = extractAgentRuns(nestedToolSpans(3))
  const hostileError = Object.create(null, {
    name: {
      get: () => {
        throw new Error('no name')
      },
    },
  })
  it.each([
    [
      'a scorer that throws synchronously',
      {
        scorer: {
          id: 's',
          run: () => {
            throw new TypeError('sync')
          },
        },
      },
      'TypeError',
      'sync',
    ],
    [
      'a scorer that rejects with a string',
      { scorer: { id: 's', run: () => Promise.reject('plain string') } },
      'Error',
      'plain string',
    ],
    [
      'a scorer that rejects with an object whose getters throw',
      { scorer: { id: 's', run: () => Promise.reject(hostileError) } },
      'Error',
      'unknown error',
    ],
    [
      'a scorer that returns nothing',
      { scorer: { id: 's', run: () => undefined } },
      'TypeError',
      'non-numeric score',
    ],
    [
      'a custom redaction that throws',
      {
        scorer: ok,
        redact: {
          custom: [
            () => {
              throw new Error('redactor broke')
            },
          ],
        },
      },
      'Error',
      'redactor broke',
    ],
  ])('%s', async (_label, entry, type, message) => {
    // resolveConfig would reject some of these entries; scoreRun must hold even when handed them.
    const decisions = await scoreRun(run!, { bad: entry as never, good: { scorer: ok } as never })
    const bad = decisions.find((d) => d.scorer === 'bad')!
    expect(bad.outcome).toBe('failed')
    expect(bad.record!.error!.type).toBe(type)
    expect(bad.record!.error!.message).toContain(message)
    expect(decisions.find((d) => d.scorer === 'good')!.outcome).toBe('scored')
  })

  it('a scorer whose id getter throws is scored under its registered name', async () => {
    const scorer = {
      get id(): string {
        throw new Error('no id')
      },
      run: async () => ({ score: 1 }),
    }
    const [decision] = await scoreRun(run!, { named: { scorer } as never })
    expect(decision!.outcome).toBe('scored')
    expect(decision!.record!.scorerId).toBe('named')
  })

  it('a token budget that fails to answer fails the decision, with nothing reserved to settle', async () => {
    const budget = new TokenBudget({ bad: 100 })
    budget.reserve = async () => {
      throw new Error('budget store down')
    }
    const settled: unknown[] = []
    budget.settle = (reservation) => settled.push(reservation)
    const [decision] = await scoreRun(run!, scorers({ bad: { scorer: ok, dailyTokenBudget: 100 } }), {
      judge: createJudge({ budget }),
    })
    expect(decision!.outcome).toBe('failed')
    expect(decision!.record!.error!.message).toBe('budget store down')
    expect(settled).toEqual([])
  })
})
