import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { listFixtures } from '../../test/fixtures/index.ts'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import { extractAgentRuns } from './extract-agent-runs.ts'

describe('extractAgentRuns with runs to skip', () => {
  it('builds the other runs exactly as a full extraction does, on every fixture', () => {
    let compared = 0
    for (const fixture of listFixtures()) {
      const traceSpans = decodeOtlpTraces(readFileSync(fixture.protoPath), 'otlp_proto')
      const all = extractAgentRuns(traceSpans)
      // The first and the last run: a parent and a nested or lost one where the trace has them.
      for (const skipped of new Set([all[0], all.at(-1)])) {
        if (!skipped) continue
        const others = extractAgentRuns(traceSpans, { skipRunSpanIds: [skipped.spanId] })
        expect(others, `${fixture.name} without ${skipped.spanId}`).toEqual(
          all.filter((run) => run.spanId !== skipped.spanId),
        )
        compared++
      }
    }
    expect(compared).toBeGreaterThan(100)
  })
})
