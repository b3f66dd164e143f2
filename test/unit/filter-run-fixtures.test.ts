import { filterRun as mastraFilterRun } from '@mastra/core/evals'
import { describe, expect, it } from 'vitest'
import { decodeOtlpTraces } from '../../src/ingest/decode/index.ts'
import type { AgentRun } from '../../src/model/index.ts'
import { type FilterRunOptions, filterRun } from '../../src/scoring/filter-run.ts'
import { extractAgentRuns } from '../../src/transform/index.ts'
import { listFixtures, loadFixture } from '../fixtures/index.ts'

/** An extracted run as the scorer sees it. */
function scorerRun(run: AgentRun) {
  return { input: run.input, output: run.output, requestContext: run.requestContext ?? { serviceName: 'x' } }
}

function runOf(name: string, index = 0): AgentRun {
  return extractAgentRuns(decodeOtlpTraces(loadFixture(name).proto))[index]!
}

const OPTION_SETS: [string, FilterRunOptions][] = [
  ['tool parts only', { partTypes: ['tool-invocation'] }],
  ['text parts only', { partTypes: ['text'] }],
  ['step-start prefix', { partTypes: ['step'] }],
  ['tool name prefix', { toolNames: ['lookup'] }],
  ['unknown tool', { toolNames: ['nope'] }],
  ['both filters', { partTypes: ['tool-invocation'], toolNames: ['get_'] }],
  ['limits', { maxRememberedMessages: 2, maxOutputMessages: 1 }],
  ['drops', { dropRequestContext: true, dropGroundTruth: true, dropExpectedTrajectory: true }],
]

describe('filterRun on extracted runs', () => {
  it('keeps a tool-heavy output message when a tool name matches and drops it when none does', () => {
    const run = scorerRun(runOf('mastra/multi-tool'))
    expect(filterRun({ toolNames: ['refund'] })(run).output).toHaveLength(1)
    expect(filterRun({ toolNames: ['nope'] })(run).output).toEqual([])
  })

  it('drops text-only history under partTypes but never touches this turn or the system messages', () => {
    const run = scorerRun(runOf('mastra/history'))
    const filtered = filterRun({ partTypes: ['tool-invocation'] })(run)
    expect(run.input.rememberedMessages).toHaveLength(4)
    expect(filtered.input.rememberedMessages).toEqual([])
    expect(filtered.input.inputMessages).toBe(run.input.inputMessages)
    expect(filtered.input.systemMessages).toBe(run.input.systemMessages)
    // The final answer has no tool call, so it is dropped as Mastra's code does.
    expect(filtered.output).toEqual([])
  })

  it('keeps the last remembered messages and can drop the request context', () => {
    const run = scorerRun(runOf('ai-sdk-7-genai/history'))
    const filtered = filterRun({ maxRememberedMessages: 2, dropRequestContext: true })(run)
    expect(filtered.input.rememberedMessages.map((m) => m.content.content)).toEqual([
      'It is A17.',
      'Got it, order A17. How can I help?',
    ])
    expect(filtered.requestContext).toBeUndefined()
    expect(run.requestContext).toBeDefined()
  })

  const cases = listFixtures()
    .filter((entry) =>
      ['multi-tool', 'parallel-tools', 'tool-error', 'history', 'nested-agents'].includes(entry.scenario),
    )
    .flatMap((entry) =>
      OPTION_SETS.map(([label, options]) => [`${entry.name}: ${label}`, entry.name, options] as const),
    )

  it.each(cases)('%s gives what Mastra’s filterRun gives', (_label, name, options) => {
    for (const run of extractAgentRuns(decodeOtlpTraces(loadFixture(name).proto))) {
      const input = scorerRun(run)
      expect(filterRun(options)(input)).toEqual(mastraFilterRun(options as never)(input as never))
    }
  })
})
