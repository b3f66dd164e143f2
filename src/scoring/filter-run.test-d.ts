import { createScorer as mastraCreateScorer } from '@mastra/core/evals'
import { describe, expectTypeOf, it } from 'vitest'
import type { ScorerRunInputForAgent, ScorerRunOutputForAgent } from '../model/message.ts'
import { createScorer } from './create-scorer.ts'
import { type FilterRunOptions, filterRun, type MastraPartType } from './filter-run.ts'

interface AgentRun {
  runId?: string
  input: ScorerRunInputForAgent
  output: ScorerRunOutputForAgent
  groundTruth?: unknown
  requestContext?: Record<string, unknown>
}

describe('filterRun types', () => {
  it('returns the type of the run it is given', () => {
    const prepare = filterRun({ partTypes: ['text'] })
    expectTypeOf(prepare<AgentRun>).returns.toEqualTypeOf<AgentRun>()
    expectTypeOf(prepare({ input: 'a', output: 42 })).toEqualTypeOf<{ input: string; output: number }>()
  })

  it('is synchronous', () => {
    expectTypeOf(filterRun({})<AgentRun>).returns.not.toExtend<Promise<unknown>>()
  })

  it('fits a prepareRun slot, sync or async', () => {
    type PrepareRun = (run: AgentRun) => AgentRun | Promise<AgentRun>
    expectTypeOf(filterRun({ maxRememberedMessages: 5 })).toExtend<PrepareRun>()
  })

  it("fits @mastra/core's createScorer prepareRun for agent scorers", () => {
    mastraCreateScorer({
      id: 'tool-quality',
      description: 'tool usage',
      type: 'agent',
      prepareRun: filterRun({ partTypes: ['tool-invocation', 'text'], maxRememberedMessages: 20 }),
    })
  })

  it("fits this project's createScorer prepareRun, for agent and custom scorers", () => {
    createScorer({
      id: 'tool-quality',
      description: 'tool usage',
      type: 'agent',
      prepareRun: filterRun({ toolNames: ['write_file'], maxOutputMessages: 3 }),
    })
    createScorer<string, number>({
      id: 'custom',
      description: 'custom shapes',
      prepareRun: filterRun({ dropGroundTruth: true }),
    })
  })

  it('MastraPartType autocompletes known types and accepts any string', () => {
    expectTypeOf<'tool-invocation'>().toExtend<MastraPartType>()
    expectTypeOf<'data-om-'>().toExtend<MastraPartType>()
    expectTypeOf<'data-my-custom'>().toExtend<MastraPartType>()
    expectTypeOf<MastraPartType>().toExtend<string>()
    expectTypeOf<42>().not.toExtend<MastraPartType>()
  })

  it('FilterRunOptions has exactly Mastra’s options', () => {
    expectTypeOf<keyof FilterRunOptions>().toEqualTypeOf<
      | 'partTypes'
      | 'toolNames'
      | 'maxRememberedMessages'
      | 'maxOutputMessages'
      | 'dropRequestContext'
      | 'dropExpectedTrajectory'
      | 'dropGroundTruth'
    >()
    // @ts-expect-error -- there is no maxInputMessages option
    filterRun({ maxInputMessages: 3 })
    // @ts-expect-error -- part types are strings
    filterRun({ partTypes: [1] })
  })

  it('requires an output field on the run', () => {
    // @ts-expect-error -- a scorer run always has an output
    filterRun({})({ input: 'x' })
  })
})
