import { describe, expect, it } from 'vitest'
import { scenarios } from '../../scripts/fixtures/scenarios.ts'
import { listFixtures, loadFixture, UNREAD_FIXTURES } from '../../test/fixtures/index.ts'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import { extractAgentRuns } from './index.ts'
import { outputSteps } from './testing/output-steps.ts'

describe('text written alongside tool calls stays in its step', () => {
  const script = scenarios.find((scenario) => scenario.name === 'multi-tool-text')!
  const entries = listFixtures().filter(
    (entry) =>
      entry.scenario === 'multi-tool-text' &&
      script.producers?.includes(entry.producer) &&
      !UNREAD_FIXTURES.has(entry.name),
  )

  it('has JavaScript fixtures of the scenario', () => {
    expect(entries.map((entry) => entry.producer).sort()).toEqual(
      script.producers!.filter((producer) => !UNREAD_FIXTURES.has(`${producer}/multi-tool-text`)).sort(),
    )
  })

  it.each(entries.map((entry) => [entry.producer, entry] as const))('%s', (_producer, entry) => {
    const [run] = extractAgentRuns(decodeOtlpTraces(loadFixture(entry).proto))
    // Step by step as scripted: text first (streamed before the call), then the step's calls.
    expect(outputSteps(run!)).toEqual(
      script.agent.steps.map((step) => ({
        texts: step.text ? [step.text] : [],
        toolCallIds: (step.toolCalls ?? []).map((call) => call.id),
      })),
    )
    expect(run!.output[0]!.content.content).toBe(script.agent.steps.at(-1)!.text)
  })
})
