import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { listFixtures, loadFixture } from '../../../test/fixtures/index.ts'
import { decodeOtlpTraces } from '../../ingest/decode/index.ts'
import type { Span } from '../../model/index.ts'
import { withConventionReadersOnly } from '../detect-convention.ts'
import { extractAgentRuns } from '../index.ts'
import { traceExact } from '../testing/fixture-runs.ts'
import { profileSchema, useProfiles } from './index.ts'
import { suggestProfile } from './suggest-profile.ts'

const documented = JSON.parse(readFileSync(new URL('./examples/hand-desk.json', import.meta.url), 'utf8'))

const spansOf = (producer: string): Span[][] =>
  listFixtures([producer]).map((entry) => decodeOtlpTraces(loadFixture(entry).proto, 'otlp_proto'))

afterEach(() => useProfiles([]))

describe('inspect --suggest', () => {
  it('proposes, from the seven hand-desk traces, the documented profile itself (no edit needed)', () => {
    const suggested = suggestProfile(spansOf('hand-desk').flat())
    expect(profileSchema.parse(suggested)).toEqual(profileSchema.parse(documented))
  })

  it('reads every hand-desk trace exactly with what it proposes', () => {
    const traces = spansOf('hand-desk')
    useProfiles([profileSchema.parse(suggestProfile(traces.flat()))])
    const truths = listFixtures(['hand-desk']).map((entry) => loadFixture(entry).truth)
    expect(traces.filter((spans, i) => traceExact(extractAgentRuns(spans), truths[i]!))).toHaveLength(7)
  })

  it('reads a built-in producer with its reader switched off from what it proposes: Quarkus LangChain4j, 7 of 7 (no edit)', () => {
    // Plain-text answers (`gen_ai.completion`), GenAI keys (so it extends genai), agents named
    // only in their span names, failures only as exception events: every part of it proposed.
    const traces = spansOf('langchain4j')
    const truths = listFixtures(['langchain4j']).map((entry) => loadFixture(entry).truth)
    const exact = () =>
      traces.filter((spans, i) =>
        traceExact(
          withConventionReadersOnly(() => extractAgentRuns(spans)),
          truths[i]!,
        ),
      ).length
    expect(exact()).toBe(0)
    const suggested = profileSchema.parse(suggestProfile(traces.flat()))
    expect(suggested).toMatchObject({
      extends: 'genai',
      fields: { agent: { name: { spanName: '^langchain4j\\.aiservices\\.([^./: ]+)' } } },
      status: { exceptionEvent: true },
    })
    useProfiles([suggested])
    expect(exact()).toBe(7)
  })

  it('proposes nothing for spans that hold no model content', () => {
    expect(suggestProfile(spansOf('spring-ai').flat())).toBeUndefined()
  })
})
