import { checks } from '@mastra/evals/checks'
import {
  createCompletenessScorer,
  createContentSimilarityScorer,
  createKeywordCoverageScorer,
  createTextualDifferenceScorer,
  createToneScorer,
  createToolCallAccuracyScorerCode,
} from '@mastra/evals/scorers/prebuilt'
import { describe, expect, it } from 'vitest'
import type { GroundTruthRun, MastraScoreTruth } from '../../test/fixtures/ground-truth.ts'
import { type Fixture, listFixtures, loadFixture, UNREAD_FIXTURES } from '../../test/fixtures/index.ts'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import type { AgentRun } from '../model/index.ts'
import { extractAgentRuns, spanRole } from './index.ts'

type Recorded = MastraScoreTruth & { options?: Record<string, unknown> }

/** The `@mastra/evals` scorer the Mastra fixture generator attached live, rebuilt from its id and options. */
function scorerFor(id: string, options: Record<string, unknown> = {}) {
  switch (id) {
    case 'completeness-scorer':
      return createCompletenessScorer()
    case 'check-no-tool-errors':
      return checks.noToolErrors()
    case 'check-max-tool-calls':
      return checks.maxToolCalls(options.max as number)
    case 'check-used-no-tools':
      return checks.usedNoTools()
    case 'code-tool-call-accuracy-scorer':
      return createToolCallAccuracyScorerCode(options as { expectedTool: string; strictMode: boolean })
    case 'check-called-tool':
      return checks.calledTool(options.toolName as string)
    default:
      throw new Error(`no scorer for ${id}`)
  }
}

async function score(
  run: AgentRun,
  id: string,
  options?: Record<string, unknown>,
): Promise<number | undefined> {
  const result = await scorerFor(id, options).run({ input: run.input, output: run.output } as never)
  return (result as { score?: number }).score
}

/** Drops what differs by construction: ids, timestamps, Mastra's `metadata`, stored `type`, step-start `model`. */
function comparable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(comparable)
  if (value instanceof Date || typeof value !== 'object' || value === null) return value
  const out: Record<string, unknown> = {}
  const record = value as Record<string, unknown>
  for (const key of Object.keys(record)) {
    if (key === 'id' || key === 'createdAt' || key === 'metadata' || key === 'model') continue
    if (key === 'type' && 'role' in record) continue
    out[key] = comparable(record[key])
  }
  return out
}

function runsOf(fixture: Fixture): AgentRun[] {
  return extractAgentRuns(decodeOtlpTraces(fixture.proto))
}

const mastraFixtures = listFixtures(['mastra']).map((entry) => loadFixture(entry))
const scored = mastraFixtures.flatMap((fixture) =>
  fixture.truth.runs.flatMap((truth, index) =>
    Object.entries((truth.mastraScores ?? {}) as Record<string, Recorded>).map(
      ([scorerId, recorded]) =>
        [`${fixture.name} #${index} ${scorerId}`, fixture, index, scorerId, recorded] as const,
    ),
  ),
)

describe('parity with Mastra live scoring', () => {
  it('has live Mastra scores to compare with', () => {
    expect(scored.length).toBeGreaterThan(0)
  })

  it.each(scored)(
    '%s: @mastra/evals gives the live score on our run',
    async (_name, fixture, index, id, recorded) => {
      const run = runsOf(fixture)[index]!
      expect(await score(run, id, recorded.options)).toBe(recorded.score)
    },
  )

  it.each(
    mastraFixtures.flatMap((fixture) =>
      fixture.truth.runs.flatMap((truth, index) =>
        truth.mastraRun ? [[fixture.name, fixture, index] as const] : [],
      ),
    ),
  )('%s: the run equals the scorer input/output Mastra built live', (_name, fixture, index) => {
    const truth = fixture.truth.runs[index]!
    const run = runsOf(fixture)[index]!
    const ours = JSON.parse(JSON.stringify({ input: run.input, output: run.output }))
    if (truth.parentAgentName && truth.conversationId === undefined) {
      // Sub-agent spans carry the caller's thread metadata; Mastra's live sub-agent run had none.
      for (const message of [...ours.input.inputMessages, ...ours.output]) {
        delete message.threadId
        delete message.resourceId
      }
    }
    expect(comparable(ours)).toEqual(comparable(truth.mastraRun))
  })

  it('keeps tool calls Mastra nests under model steps (its own trace transform loses them)', () => {
    const fixture = mastraFixtures.find((candidate) => candidate.scenario === 'multi-tool')!
    const spans = decodeOtlpTraces(fixture.proto)
    const agent = spans.find((span) => spanRole(span) === 'agent')!
    const tools = spans.filter((span) => spanRole(span) === 'tool')
    expect(tools.length).toBe(2)
    for (const tool of tools) expect(tool.parentSpanId).not.toBe(agent.spanId)
    const run = runsOf(fixture)[0]!
    expect(run.output[0]!.content.toolInvocations?.map((call) => call.toolName)).toEqual([
      'lookup_order',
      'refund',
    ])
  })
})

/**
 * Whether two producers' runs of a scenario had the same conversation (status and final text of
 * each run): a framework that ends the run where Mastra goes on (Genkit fails the run on a tool
 * error) had another conversation, which Mastra's scores do not describe.
 */
function sameConversation(runs: GroundTruthRun[], mastraRuns: GroundTruthRun[]): boolean {
  const outcome = (list: GroundTruthRun[]) => list.map((run) => [run.status, run.finalText])
  return JSON.stringify(outcome(runs)) === JSON.stringify(outcome(mastraRuns))
}

describe('Mastra live scores reproduced from other producers of the same scenario', () => {
  // Producers whose spans leave parts of a run unrecorded (Spring AI's prompts) cannot give the
  // scores of those parts.
  const twins = listFixtures()
    .filter((entry) => entry.producer !== 'mastra' && !UNREAD_FIXTURES.has(entry.name))
    .flatMap((entry) => {
      const mastra = mastraFixtures.find((fixture) => fixture.scenario === entry.scenario)
      const fixture = loadFixture(entry)
      const complete = fixture.truth.runs.every((run) => !run.notRecorded?.length)
      return mastra && complete && sameConversation(fixture.truth.runs, mastra.truth.runs)
        ? [[entry.name, fixture, mastra] as const]
        : []
    })

  it('has other producers with a Mastra twin', () => {
    expect(twins.length).toBeGreaterThan(0)
  })

  it.each(twins)('%s', async (_name, fixture, mastra) => {
    const runs = runsOf(fixture)
    let compared = 0
    for (const [index, truth] of mastra.truth.runs.entries()) {
      for (const [id, recorded] of Object.entries((truth.mastraScores ?? {}) as Record<string, Recorded>)) {
        expect({ id, index, score: await score(runs[index]!, id, recorded.options) }).toEqual({
          id,
          index,
          score: recorded.score,
        })
        compared++
      }
    }
    expect(compared).toBe(
      mastra.truth.runs.reduce((n, run) => n + Object.keys(run.mastraScores ?? {}).length, 0),
    )
  })
})

/** Every code scorer of `@mastra/evals`, set up from what the turn should contain. */
function codeScorers(truth: { finalText: string; toolCalls: { name: string }[] }) {
  const names = truth.toolCalls.map((call) => call.name)
  const word = truth.finalText.split(/\s+/)[0] ?? ''
  return [
    createCompletenessScorer(),
    createContentSimilarityScorer(),
    createKeywordCoverageScorer(),
    createTextualDifferenceScorer(),
    createToneScorer(),
    createToolCallAccuracyScorerCode({ expectedTool: names[0] ?? 'none', strictMode: true }),
    createToolCallAccuracyScorerCode({
      expectedTool: names[0] ?? 'none',
      expectedToolOrder: names,
      strictMode: false,
    }),
    checks.includes(word),
    checks.excludes('refund'),
    checks.equals(truth.finalText),
    checks.matches(/\d/),
    checks.similarity(truth.finalText),
    checks.calledTool(names[0] ?? 'none'),
    checks.didNotCall('refund'),
    checks.toolOrder(names),
    checks.maxToolCalls(1),
    checks.usedNoTools(),
    checks.noToolErrors(),
  ]
}

/** The recorded Mastra run with its dates back as Date objects. */
function revive(run: unknown): { input: unknown; output: unknown } {
  return JSON.parse(JSON.stringify(run), (key, value) =>
    key === 'createdAt' && typeof value === 'string' ? new Date(value) : value,
  )
}

describe('every @mastra/evals code scorer scores our run as it scores the run Mastra built', () => {
  const cases = mastraFixtures.flatMap((fixture) =>
    fixture.truth.runs.flatMap((truth, index) =>
      truth.mastraRun ? [[`${fixture.name} #${index}`, fixture, index] as const] : [],
    ),
  )

  it.each(cases)('%s', async (_name, fixture, index) => {
    const truth = fixture.truth.runs[index]!
    const ours = runsOf(fixture)[index]!
    const theirs = revive(truth.mastraRun)
    for (const scorer of codeScorers(truth)) {
      const mine = await scorer.run({ input: ours.input, output: ours.output } as never)
      const mastra = await scorer.run(theirs as never)
      expect({ scorer: scorer.id, score: (mine as { score?: number }).score }).toEqual({
        scorer: scorer.id,
        score: (mastra as { score?: number }).score,
      })
    }
  })
})
