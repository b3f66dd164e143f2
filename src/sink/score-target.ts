import type { ScoreRecord } from '../model/index.ts'

const traceIdPattern = /^[0-9a-f]{32}$/i
const spanIdPattern = /^[0-9a-f]{16}$/i

/**
 * Whether a record names a valid W3C trace id and span id (hex, not all zero). Records that do
 * not cannot be attached to a trace; the trace-backed sinks skip and count them rather than
 * retrying a request that can never succeed (bad input never stops the pipeline).
 */
export function hasValidTarget(record: ScoreRecord): boolean {
  return (
    traceIdPattern.test(record.traceId) &&
    !/^0+$/.test(record.traceId) &&
    spanIdPattern.test(record.spanId) &&
    !/^0+$/.test(record.spanId)
  )
}
