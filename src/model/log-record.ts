import type { Attributes, AttributeValue, InstrumentationScope } from './span.ts'

/**
 * The normalized OTLP log record ingest works with (decoded from an `ExportLogsServiceRequest`):
 * what a log-based event (a GenAI content event, an evaluation result) carries. Ids are lowercase
 * hex, empty when the record was not written inside a span; times are decimal strings of
 * nanoseconds (int64 kept exact), `'0'` when unset.
 */
export interface LogRecord {
  traceId: string
  spanId: string
  timeUnixNano: string
  observedTimeUnixNano: string
  /** OTLP `SeverityNumber` (0: unspecified). */
  severityNumber: number
  severityText?: string
  /** The record's `event_name`, else its `event.name` attribute (older SDKs), else ''. */
  eventName: string
  /** The record's body (`AnyValue`); null when it has none. */
  body: AttributeValue
  attributes: Attributes
  /** Attributes of the resource that emitted the record (`service.name`, ...). */
  resource: Attributes
  scope: InstrumentationScope
}
