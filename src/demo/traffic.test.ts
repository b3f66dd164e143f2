import { describe, expect, it } from 'vitest'
import { repoRoot } from '../../test/helpers/cli.ts'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import type { Span } from '../model/index.ts'
import { loadTrafficSamples, withFreshIds } from './traffic.ts'

const samples = loadTrafficSamples(`${repoRoot}test/fixtures/data`)

/** A span without its ids, to compare everything else. */
const idless = ({ traceId, spanId, parentSpanId, links, ...rest }: Span) => ({ ...rest, links: links.length })

describe('withFreshIds', () => {
  it.each(samples.map((s) => [s.name, s] as const))(
    '%s: new trace and span ids, the same tree, every other byte kept',
    (_name, sample) => {
      const before = decodeOtlpTraces(sample.payload, 'otlp_proto')
      const { payload, traceIds } = withFreshIds(sample)
      const after = decodeOtlpTraces(payload, 'otlp_proto')
      expect(payload.length).toBe(sample.payload.length)
      expect(after.map(idless)).toEqual(before.map(idless))
      expect(traceIds).toEqual([...new Set(after.map((s) => s.traceId))])
      const oldIds = new Set(before.flatMap((s) => [s.traceId, s.spanId]))
      // Old id -> new id, from the spans themselves; a parent outside the payload is renewed too.
      const renewed = new Map(before.map((s, i) => [s.spanId, after[i]!.spanId]))
      for (const [i, span] of after.entries()) {
        expect(oldIds.has(span.traceId) || oldIds.has(span.spanId)).toBe(false)
        const oldParent = before[i]!.parentSpanId
        if (!oldParent) expect(span.parentSpanId).toBe(oldParent)
        else if (renewed.has(oldParent)) expect(span.parentSpanId).toBe(renewed.get(oldParent))
        else {
          expect(span.parentSpanId).not.toBe(oldParent)
          renewed.set(oldParent, span.parentSpanId!)
        }
      }
    },
  )

  it('gives each replay of a sample its own ids', () => {
    const [a, b] = [withFreshIds(samples[0]!), withFreshIds(samples[0]!)]
    expect(a.traceIds).not.toEqual(b.traceIds)
    const spanIds = (p: Buffer) => decodeOtlpTraces(p).map((s) => s.spanId)
    expect(spanIds(a.payload).filter((id) => spanIds(b.payload).includes(id))).toEqual([])
  })
})
