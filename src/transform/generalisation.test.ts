/**
 * The generalisation table (issue 27): for every producer with fixtures, how many of its traces
 * are rebuilt exactly with every reader written for one framework switched off — the measure of
 * reading producers by convention and structure, which is what a producer nobody named gets.
 * The table is printed (and copied into bench/RESULTS.md); the test fails when a total drops.
 */
import { describe, expect, it } from 'vitest'
import { listFixtures, loadFixture } from '../../test/fixtures/index.ts'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import { withConventionReadersOnly } from './detect-convention.ts'
import { extractAgentRuns } from './index.ts'
import { traceExact } from './testing/fixture-runs.ts'

/**
 * The totals this checkout reaches: raise them when a change makes more cells exact, never lower
 * them without saying why in the commit.
 */
const FLOOR = { all: 298, conventionsOnly: 266 }

interface Row {
  producer: string
  cells: number
  all: number
  conventionsOnly: number
}

function table(): Row[] {
  const rows = new Map<string, Row>()
  for (const entry of listFixtures()) {
    const fixture = loadFixture(entry)
    const spans = decodeOtlpTraces(fixture.proto, 'otlp_proto')
    const row = rows.get(entry.producer) ?? { producer: entry.producer, cells: 0, all: 0, conventionsOnly: 0 }
    rows.set(entry.producer, row)
    row.cells++
    if (traceExact(extractAgentRuns(spans), fixture.truth)) row.all++
    if (withConventionReadersOnly(() => traceExact(extractAgentRuns(spans), fixture.truth)))
      row.conventionsOnly++
  }
  return [...rows.values()]
}

function print(rows: Row[]): string {
  const total = (key: 'cells' | 'all' | 'conventionsOnly') => rows.reduce((sum, row) => sum + row[key], 0)
  const lines = [
    '| producer | cells | exact | exact, framework readers off |',
    '| --- | ---: | ---: | ---: |',
    ...rows.map((row) => `| ${row.producer} | ${row.cells} | ${row.all} | ${row.conventionsOnly} |`),
    `| **total** | ${total('cells')} | ${total('all')} | ${total('conventionsOnly')} (${Math.round((100 * total('conventionsOnly')) / total('cells'))} %) |`,
  ]
  return lines.join('\n')
}

describe('generalisation: fixtures read with the framework readers off', () => {
  it('keeps its totals', () => {
    const rows = table()
    console.log(`\n${print(rows)}\n`)
    const sum = (key: 'all' | 'conventionsOnly') => rows.reduce((total, row) => total + row[key], 0)
    expect(sum('all')).toBeGreaterThanOrEqual(FLOOR.all)
    expect(sum('conventionsOnly')).toBeGreaterThanOrEqual(FLOOR.conventionsOnly)
  })
})
