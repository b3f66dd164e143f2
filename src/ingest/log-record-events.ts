import type { LogRecord } from '../model/log-record.ts'
import type { Attributes, Span, SpanEvent } from '../model/span.ts'

/**
 * The attribute key under which a log record's body is kept on the span event made of it. `body`
 * is where the GenAI conventions' per-message events (`gen_ai.user.message`, `gen_ai.choice`, ...)
 * carry their content as log records, and where transform's event reading looks for a structured
 * body. A log attribute of the same name wins (the body is then not kept).
 */
export const LOG_BODY_KEY = 'body'

/**
 * The span event a log record becomes: named by the record's event name, at its time (its
 * observed time when it has none), with its attributes plus its body under {@link LOG_BODY_KEY},
 * marked `fromLog`.
 */
export function logRecordEvent(record: LogRecord): SpanEvent {
  let attributes: Attributes = record.attributes
  if (record.body !== null && !Object.hasOwn(attributes, LOG_BODY_KEY)) {
    attributes = { ...attributes }
    attributes[LOG_BODY_KEY] = record.body
  }
  const time = record.timeUnixNano !== '0' ? record.timeUnixNano : record.observedTimeUnixNano
  return { name: record.eventName, timeUnixNano: time, attributes, fromLog: true }
}

/**
 * The trace's spans with its log records attached to their spans as span events (after the span's
 * own events, in time order, arrival order among equal times); a record delivered twice (at least
 * once, from Kafka) is attached once. The spans a record attaches to are copies: decoded spans may
 * be shared or frozen. Records whose span is not in the trace are left out, and counted.
 */
export function attachLogRecords(
  spans: readonly Span[],
  records: readonly LogRecord[],
): { spans: Span[]; unattached: number } {
  const bySpan = new Map<string, SpanEvent[]>()
  const seen = new Set<string>()
  for (const record of records) {
    const key = recordKey(record)
    if (seen.has(key)) continue
    seen.add(key)
    const list = bySpan.get(record.spanId)
    if (list === undefined) bySpan.set(record.spanId, [logRecordEvent(record)])
    else list.push(logRecordEvent(record))
  }
  let attached = 0
  const out = spans.map((span) => {
    const events = bySpan.get(span.spanId)
    if (events === undefined) return span
    bySpan.delete(span.spanId) // a duplicate span id gets them once
    attached += events.length
    events.sort((a, b) => compareDecimal(a.timeUnixNano, b.timeUnixNano))
    return { ...span, events: [...span.events, ...events] }
  })
  return { spans: out, unattached: seen.size - attached }
}

/** What tells two log records apart: their span, times and name, and their content when untimed. */
function recordKey(record: LogRecord): string {
  const key = `${record.spanId}/${record.timeUnixNano}/${record.observedTimeUnixNano}/${record.eventName}`
  if (record.timeUnixNano !== '0' || record.observedTimeUnixNano !== '0') return key
  return `${key}/${JSON.stringify([record.attributes, record.body])}`
}

/** Orders two unsigned decimal strings by value. */
function compareDecimal(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length
  return a < b ? -1 : a > b ? 1 : 0
}
