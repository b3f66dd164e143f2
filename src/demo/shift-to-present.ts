import { spanFieldOffsets } from './span-field-offsets.ts'

/**
 * A copy of an OTLP/protobuf `ExportTraceServiceRequest` with each trace moved in time so that its
 * last span ends at `nowMs`: every start, end and event time of the trace shifts by the same
 * amount, so durations and the offsets between spans stay as recorded. Timestamps are fixed64
 * fields, so they are rewritten in place and every other byte stays as the instrumentation wrote it.
 * Replayed recordings thus show up in a backend's "last hour" or "last 7 days" view next to the
 * scores written for them now.
 */
export function shiftTracesToPresent(payload: Buffer, nowMs: number): Buffer {
  const out = Buffer.from(payload)
  const spans = spanFieldOffsets(out).map((s) => ({
    traceId: out.toString('hex', s.traceId, s.traceId + 16),
    end: s.endTime === undefined ? 0n : out.readBigUInt64LE(s.endTime),
    times: [s.startTime, s.endTime, ...s.eventTimes].filter((at) => at !== undefined),
  }))
  const lastEnd = new Map<string, bigint>()
  for (const s of spans) {
    if (s.end > (lastEnd.get(s.traceId) ?? 0n)) lastEnd.set(s.traceId, s.end)
  }
  const now = BigInt(nowMs) * 1_000_000n
  for (const s of spans) {
    const shift = now - (lastEnd.get(s.traceId) ?? now)
    for (const at of s.times) {
      const time = out.readBigUInt64LE(at)
      // Zero means "unset" in OTLP; it stays unset.
      if (time !== 0n) out.writeBigUInt64LE(time + shift, at)
    }
  }
  return out
}
