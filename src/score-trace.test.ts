import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { listFixtures } from '../test/fixtures/index.ts'
import { resolveConfig } from './config/define-config.ts'
import { decodeOtlpTraces } from './ingest/decode/index.ts'
import { scoreTrace } from './score-trace.ts'

const scorer = { id: 'count', run: async ({ output }: { output: unknown[] }) => ({ score: output.length }) }
const { scorers } = resolveConfig({ scorers: { count: { scorer } } }, {})
const nested = listFixtures(['ai-sdk-7-genai']).find((f) => f.scenario === 'nested-agents')!
const spans = decodeOtlpTraces(readFileSync(nested.protoPath), 'otlp_proto')

describe('scoreTrace', () => {
  it('scores every agent run of the trace, nested ones included', async () => {
    const { runs, records } = await scoreTrace(spans, { scorers })
    expect(runs.length).toBe(2)
    expect(records.map((r) => r.spanId).sort()).toEqual(runs.map((r) => r.spanId).sort())
  })

  it('skips the runs an earlier release scored, and flags runs of an incomplete trace', async () => {
    const all = (await scoreTrace(spans, { scorers })).runs
    const inner = all.find((r) => r.parentRunSpanId)!
    const outer = all.find((r) => r !== inner)!
    const { runs, records } = await scoreTrace(spans, {
      scorers,
      scoredRunSpanIds: [outer.spanId],
      incomplete: true,
    })
    expect(runs.map((r) => r.spanId)).toEqual([inner.spanId])
    expect(runs[0]!.incomplete).toBe(true)
    expect(records).toHaveLength(1)
    expect(records[0]!.incomplete).toBe(true)
  })
})
