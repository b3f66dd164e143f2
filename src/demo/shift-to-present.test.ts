import { describe, expect, it } from 'vitest'
import { repoRoot } from '../../test/helpers/cli.ts'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import type { Span } from '../model/index.ts'
import { shiftTracesToPresent } from './shift-to-present.ts'
import { loadTrafficSamples } from './traffic.ts'

const samples = loadTrafficSamples(`${repoRoot}test/fixtures/data`)
const now = Date.parse('2026-12-01T12:00:00.123Z')
const nanos = (s: string) => BigInt(s)

/** A span without its times, to compare everything else. */
const timeless = ({ startTimeUnixNano, endTimeUnixNano, events, ...rest }: Span) => ({
  ...rest,
  events: events.map(({ timeUnixNano, ...e }) => e),
})

describe('shiftTracesToPresent', () => {
  it.each(samples.map((s) => [s.name, s] as const))(
    '%s: each trace ends now, with durations, offsets and all other bytes kept',
    (_name, sample) => {
      const before = decodeOtlpTraces(sample.payload, 'otlp_proto')
      const shifted = shiftTracesToPresent(sample.payload, now)
      const after = decodeOtlpTraces(shifted, 'otlp_proto')
      expect(shifted.length).toBe(sample.payload.length)
      expect(after.map(timeless)).toEqual(before.map(timeless))
      for (const traceId of sample.traceIds) {
        const idx = before.flatMap((s, i) => (s.traceId === traceId ? [i] : []))
        const lastEnd = (spans: Span[]) =>
          idx.map((i) => nanos(spans[i]!.endTimeUnixNano)).sort((a, b) => Number(a - b))[idx.length - 1]!
        expect(lastEnd(after)).toBe(BigInt(now) * 1_000_000n)
        const shift = lastEnd(after) - lastEnd(before)
        expect(shift).toBeGreaterThan(0n)
        for (const i of idx) {
          expect(nanos(after[i]!.startTimeUnixNano) - nanos(before[i]!.startTimeUnixNano)).toBe(shift)
          expect(nanos(after[i]!.endTimeUnixNano) - nanos(before[i]!.endTimeUnixNano)).toBe(shift)
          after[i]!.events.forEach((e, j) => {
            expect(nanos(e.timeUnixNano) - nanos(before[i]!.events[j]!.timeUnixNano)).toBe(shift)
          })
        }
      }
    },
  )

  it('leaves the input untouched', () => {
    const sample = samples[0]!
    const copy = Buffer.from(sample.payload)
    shiftTracesToPresent(sample.payload, now)
    expect(sample.payload.equals(copy)).toBe(true)
  })

  it('shifts the event times of the recordings that have events', () => {
    const withEvents = samples.filter((s) =>
      decodeOtlpTraces(s.payload).some((span) => span.events.length > 0),
    )
    expect(withEvents.length).toBeGreaterThan(0)
  })
})
