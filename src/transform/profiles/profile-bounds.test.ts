import { afterEach, describe, expect, it } from 'vitest'
import type { AgentRun, Span } from '../../model/index.ts'
import { extractAgentRuns } from '../index.ts'
import {
  agentsUnderDeepChain,
  manySystemMessages,
  nestedToolSpans,
  orphansAfterFinishedAgents,
} from '../testing/hostile-inputs.ts'
import { countOperations } from '../testing/operation-count.ts'
import { everySpanProfile, tenUserProfiles } from '../testing/user-profiles.ts'
import { useProfiles } from './index.ts'

/** As `hostile-inputs.test.ts`: two sizes, the larger twice the smaller. */
const SIZE = 10_000
const OPERATIONS_PER_UNIT = 500

function expectLinear(build: (size: number) => Span[]): AgentRun[] {
  const first = countOperations(build(SIZE), extractAgentRuns, OPERATIONS_PER_UNIT * SIZE)
  const second = countOperations(build(2 * SIZE), extractAgentRuns, OPERATIONS_PER_UNIT * 2 * SIZE)
  expect(first.exceeded, `${first.operations} operations at size ${SIZE}`).toBe(false)
  expect(second.exceeded, `${second.operations} operations at size ${2 * SIZE}`).toBe(false)
  expect(second.operations / first.operations).toBeLessThanOrEqual(2.5)
  return second.value!
}

const HOSTILE = [
  ['agents under a deep chain', agentsUnderDeepChain],
  ['orphans after finished agents', orphansAfterFinishedAgents],
  ['deeply nested tool spans', nestedToolSpans],
  ['many system messages', manySystemMessages],
] as const

afterEach(() => useProfiles([]))

describe('hostile inputs with producer profiles loaded', { timeout: 240_000 }, () => {
  it.each(HOSTILE)(
    '%s: ten user profiles keep the transform linear and its runs unchanged',
    (_name, build) => {
      const without = extractAgentRuns(build(2 * SIZE))
      useProfiles(tenUserProfiles())
      expect(expectLinear(build)).toEqual(without)
    },
  )

  // Not the deep chain: a profile that makes each of its 20,000 nested spans a run asks for 20,000
  // nested runs, which cost what they cost in any convention (each run's subtree is read).
  it.each(HOSTILE.slice(1))(
    '%s: a profile that owns every span stays linear (every span a run)',
    (_name, build) => {
      useProfiles([everySpanProfile()])
      const runs = expectLinear(build)
      expect(runs.length).toBeGreaterThan(0)
      expect(runs.every((run) => run.convention === 'generic')).toBe(true)
    },
  )
})
