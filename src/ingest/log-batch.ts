import type { LogRecord } from '../model/log-record.ts'
import { estimateSpanBytes } from './estimate-span-bytes.ts'
import type { SpanBatch } from './span-batch.ts'

/**
 * The log records of one record as the trace assembler takes them: each joins the trace of its
 * trace id like a span (same buffer, caps, offsets), but is never a span: the assembler attaches
 * it to span `spanId(i)` as a span event when the trace is read (`log-record-events.ts`). Only
 * records with a trace and a span id belong in it.
 */
export function logRecordBatch(records: readonly LogRecord[]): SpanBatch {
  return {
    length: records.length,
    traceId: (i) => records[i]!.traceId,
    spanId: (i) => records[i]!.spanId,
    isRoot: () => false,
    candidate: () => undefined,
    span: () => {
      throw new Error('a log record batch holds no spans: read it with logRecord(i)')
    },
    logRecord: (i) => records[i]!,
    encodedBytes: (i) => estimateLogRecordBytes(records[i]!),
  }
}

/** A log record's size for the byte cap, estimated as a span's with its body as one more attribute. */
function estimateLogRecordBytes(record: LogRecord): number {
  return estimateSpanBytes({
    traceId: record.traceId,
    spanId: record.spanId,
    name: record.eventName,
    kind: 0,
    startTimeUnixNano: record.timeUnixNano,
    endTimeUnixNano: record.observedTimeUnixNano,
    attributes: record.body === null ? record.attributes : { ...record.attributes, body: record.body },
    events: [],
    links: [],
    status: { code: 0 },
    resource: record.resource,
    scope: record.scope,
  })
}
