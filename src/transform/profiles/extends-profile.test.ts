import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { listFixtures, loadFixture } from '../../../test/fixtures/index.ts'
import { decodeOtlpTraces } from '../../ingest/decode/index.ts'
import { withConventionReadersOnly } from '../detect-convention.ts'
import { extractAgentRuns } from '../index.ts'
import { traceExact } from '../testing/fixture-runs.ts'
import { type Profile, profileSchema, useProfiles } from './index.ts'

const profile = (path: string): Profile =>
  profileSchema.parse(JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')))

/** How many of a producer's fixtures are exact with only the convention readers (and the given profiles). */
function exactWithConventionsOnly(producer: string, profiles: Profile[]): number {
  useProfiles(profiles)
  return listFixtures([producer]).filter((entry) => {
    const fixture = loadFixture(entry)
    const spans = decodeOtlpTraces(fixture.proto, 'otlp_proto')
    return traceExact(
      withConventionReadersOnly(() => extractAgentRuns(spans)),
      fixture.truth,
    )
  }).length
}

afterEach(() => useProfiles([]))

describe('profiles that extend a built-in convention, with the framework readers off', () => {
  it('Quarkus LangChain4j: 0 of 7 exact by the GenAI convention alone, 7 of 7 with a 20-line profile extending it', () => {
    expect(exactWithConventionsOnly('langchain4j', [])).toBe(0)
    expect(exactWithConventionsOnly('langchain4j', [profile('./examples/quarkus-langchain4j.json')])).toBe(7)
  })

  it('Spring AI: the built-in profile (extends genai) loaded as a user profile reads what the framework reader read', () => {
    // Runs by structure read 6 of 7 without it too (contentless model calls under a GenAI
    // `framework` span, tool keys of Spring's own): the profile must lose none of them.
    expect(exactWithConventionsOnly('spring-ai', [profile('./builtin/spring-ai.json')])).toBe(6)
  })
})
