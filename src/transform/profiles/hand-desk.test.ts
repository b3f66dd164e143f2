import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { listFixtures, loadFixture } from '../../../test/fixtures/index.ts'
import { decodeOtlpTraces } from '../../ingest/decode/index.ts'
import { extractAgentRuns } from '../index.ts'
import { expectRunMatches } from '../testing/fixture-runs.ts'
import { profileSchema, useProfiles } from './index.ts'

/** The profile `docs/producer-profiles.md` documents for the `hand-desk` program. */
const profilePath = new URL('./examples/hand-desk.json', import.meta.url)
const profile = profileSchema.parse(JSON.parse(readFileSync(profilePath, 'utf8')))

afterEach(() => useProfiles([]))

describe('hand-desk: a program whose vocabulary no built-in reader knows', () => {
  const entries = listFixtures(['hand-desk'])

  it('has the seven common scenarios', () => {
    expect(entries.map((entry) => entry.scenario)).toHaveLength(7)
  })

  describe.each(entries.map((entry) => [entry.scenario, entry] as const))('%s', (_name, entry) => {
    const fixture = loadFixture(entry)
    const spans = () => decodeOtlpTraces(fixture.proto, 'otlp_proto')

    it('gives no run without a profile', () => {
      expect(extractAgentRuns(spans())).toEqual([])
    })

    it('rebuilds every run exactly with the documented profile', () => {
      useProfiles([profile])
      const runs = extractAgentRuns(spans())
      expect(runs.map((run) => run.agentName)).toEqual(fixture.truth.runs.map((run) => run.agentName))
      fixture.truth.runs.forEach((truth, index) => {
        expectRunMatches(runs[index]!, truth, runs, fixture.truth.runs)
      })
    })
  })
})
