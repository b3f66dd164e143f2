import { createAnswerRelevancyScorer, createToolCallAccuracyScorerCode } from '@mastra/evals/scorers/prebuilt'
import { describe, expect, it } from 'vitest'
import { answeredScorer } from '../../config/scorers/answered.ts'
import { createHelpfulnessScorer } from '../../config/scorers/helpfulness.ts'
import { toolSuccessScorer } from '../../config/scorers/tool-success.ts'
import { resolveConfig } from '../config/define-config.ts'
import type { RecordedParts } from '../model/index.ts'
import { createScorer } from './create-scorer.ts'
import { judgeModel } from './governed-judge-model.ts'
import { createJudge } from './judge.ts'
import { requiredParts } from './required-parts.ts'
import { scoreRun } from './score-run.ts'
import { agentRunFixture } from './testing/agent-run-fixture.ts'
import { scriptedJudge } from './testing/scripted-judge.ts'

const ALL: RecordedParts = {
  input: true,
  system: true,
  finalText: true,
  toolArguments: true,
  toolResults: true,
}
/** What content capture off leaves: the structure, none of the text. */
const CONTENT_OFF: RecordedParts = {
  input: false,
  system: false,
  finalText: false,
  toolArguments: false,
  toolResults: false,
}

function entries(input: Record<string, unknown>) {
  return resolveConfig({ scorers: input }, {}).scorers
}

describe('scorers that need a part the trace did not record are not run', () => {
  it("the example 'answered' scorer gives not-scorable, not 0, when the final text was not recorded", async () => {
    const run = agentRunFixture({ recorded: { ...ALL, finalText: false } })
    const [decision] = await scoreRun(run, entries({ answered: { scorer: answeredScorer } }))
    expect(decision).toMatchObject({
      outcome: 'not-scorable',
      unrecorded: ['finalText'],
      detail: "the trace did not record the run's final text (content capture off?)",
    })
    expect(decision!.record).toBeUndefined()
  })

  it('a judge (prompt-object step) is not asked about a run without its input or answer, by default', async () => {
    const judge = scriptedJudge(['{"score":0.9}', 'Because.'])
    const deps = { judge: createJudge({ resolveModel: () => judge.model }) }
    const scorers = entries({ helpfulness: { scorer: createHelpfulnessScorer('acme/judge') } })
    const [skipped] = await scoreRun(agentRunFixture({ recorded: CONTENT_OFF }), scorers, deps)
    expect(skipped).toMatchObject({ outcome: 'not-scorable', unrecorded: ['input', 'finalText'] })
    expect(judge.calls).toHaveLength(0)
    // The same run with its text recorded is judged.
    const [scored] = await scoreRun(agentRunFixture({ recorded: ALL }), scorers, deps)
    expect(scored).toMatchObject({ outcome: 'scored', record: { score: 0.9 } })
    expect(judge.calls.length).toBeGreaterThan(0)
  })

  it("Mastra's prebuilt judge scorers are not run either, and get no judge call", async () => {
    const judge = scriptedJudge(['{"verdicts":[]}'])
    const scorer = createAnswerRelevancyScorer({ model: judgeModel(judge.model) })
    const [decision] = await scoreRun(
      agentRunFixture({ recorded: { ...ALL, input: false } }),
      entries({ relevancy: { scorer } }),
    )
    expect(decision).toMatchObject({ outcome: 'not-scorable', unrecorded: ['input'] })
    expect(judge.calls).toHaveLength(0)
  })

  it("a Mastra code scorer that reads the tools' names runs without their arguments and results", async () => {
    const scorer = createToolCallAccuracyScorerCode({ expectedTool: 'lookup' })
    expect(requiredParts({ scorer })).toEqual(['input'])
    const [offDecision] = await scoreRun(
      agentRunFixture({ recorded: CONTENT_OFF }),
      entries({ tools: { scorer } }),
    )
    expect(offDecision).toMatchObject({ outcome: 'not-scorable', unrecorded: ['input'] })
    const input = {
      ...agentRunFixture().input,
      inputMessages: [
        {
          id: 'i1',
          role: 'user' as const,
          createdAt: new Date(0),
          content: { format: 2 as const, parts: [{ type: 'text' as const, text: 'Where is A17?' }] },
        },
      ],
    }
    const call = { toolCallId: 'c1', toolName: 'lookup', args: {}, state: 'call' as const }
    const output = [
      {
        id: 'o1',
        role: 'assistant' as const,
        createdAt: new Date(0),
        content: { format: 2 as const, parts: [{ type: 'tool-invocation' as const, toolInvocation: call }] },
      },
    ]
    const [decision] = await scoreRun(
      agentRunFixture({ recorded: { ...CONTENT_OFF, input: true }, input, output }),
      entries({ tools: { scorer } }),
    )
    expect(decision).toMatchObject({ outcome: 'scored', record: { score: 1 } })
  })

  it("the registry entry's `requires` overrides the scorer's, and the scorer sees `recorded`", async () => {
    const seen: unknown[] = []
    const scorer = createScorer({ id: 'sees', description: 'records its input', requires: ['system'] })
      .preprocess(({ run }) => {
        seen.push(run.recorded)
        return {}
      })
      .generateScore(() => 1)
    const run = agentRunFixture({ recorded: { ...ALL, system: false } })
    const [own] = await scoreRun(run, entries({ sees: { scorer } }))
    expect(own).toMatchObject({ outcome: 'not-scorable', unrecorded: ['system'] })
    const [overridden] = await scoreRun(run, entries({ sees: { scorer, requires: [] } }))
    expect(overridden!.outcome).toBe('scored')
    expect(seen).toEqual([{ ...ALL, system: false }])
  })

  it('says what each example scorer needs', () => {
    expect(requiredParts({ scorer: answeredScorer })).toEqual(['finalText'])
    expect(requiredParts({ scorer: toolSuccessScorer })).toEqual(['toolResults'])
    expect(requiredParts({ scorer: createHelpfulnessScorer('acme/judge') })).toEqual(['input', 'finalText'])
  })

  it('a run built by hand (no `recorded`) counts as fully recorded', async () => {
    const run = agentRunFixture()
    delete run.recorded
    const [decision] = await scoreRun(run, entries({ answered: { scorer: answeredScorer } }))
    expect(decision!.outcome).toBe('scored')
  })

  it('rejects an unknown part in the configuration, naming the key', () => {
    expect(() =>
      resolveConfig({ scorers: { answered: { scorer: answeredScorer, requires: ['answer'] } } }, {}),
    ).toThrow(/scorers\.answered\.requires/)
  })
})
