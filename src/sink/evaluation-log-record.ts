import { type Attributes, TraceFlags } from '@opentelemetry/api'
import { SeverityNumber } from '@opentelemetry/api-logs'
import { millisToHrTime } from '@opentelemetry/core'
import type { Resource } from '@opentelemetry/resources'
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs'
import type { ScoreRecord } from '../model/index.ts'
import { type PassThreshold, scoreSpanAttributes } from './score-attributes.ts'
import { tracescoreVersion } from './tracescore-version.ts'

/** The event name of an evaluation result written as a log record (GenAI semconv). */
export const EVALUATION_RESULT_EVENT = 'gen_ai.evaluation.result'

/** The instrumentation scope of evaluation log records: one object, as exporters group by identity. */
const scope = { name: 'tracescore', version: tracescoreVersion }

/**
 * The `gen_ai.evaluation.result` log record of a score, as the GenAI conventions now ask for
 * events ("parented to the GenAI operation span being evaluated"): it carries the run's trace id
 * and the agent span's own span id, so a backend attaches it to the span it judges, with the
 * evaluation attributes (`gen_ai.evaluation.name`, `.score.value`, `.score.label`, `.explanation`,
 * `error.type` when scoring failed) and the score span's `tracescore.*` provenance keys. A failed
 * scoring is severity WARN, a score INFO; the time is the score's.
 */
export function toEvaluationLogRecord(
  record: ScoreRecord,
  resource: Resource,
  passThreshold?: PassThreshold,
): ReadableLogRecord {
  const time = millisToHrTime(record.timestampMs)
  const attributes: Attributes = scoreSpanAttributes(record, passThreshold)
  // An evaluator kind on a log record would tell OpenInference backends nothing: it names spans.
  delete attributes['openinference.span.kind']
  return {
    hrTime: time,
    hrTimeObserved: time,
    spanContext: {
      traceId: record.traceId.toLowerCase(),
      spanId: record.spanId.toLowerCase(),
      traceFlags: TraceFlags.SAMPLED,
    },
    severityNumber: record.error ? SeverityNumber.WARN : SeverityNumber.INFO,
    severityText: record.error ? 'WARN' : 'INFO',
    eventName: EVALUATION_RESULT_EVENT,
    resource,
    instrumentationScope: scope,
    attributes,
    droppedAttributesCount: 0,
  }
}
