import type { Attributes, SpanContext } from '@opentelemetry/api'
import { SpanKind, SpanStatusCode, TraceFlags } from '@opentelemetry/api'
import type { InstrumentationScope } from '@opentelemetry/core'
import { millisToHrTime } from '@opentelemetry/core'
import type { Resource } from '@opentelemetry/resources'
import { resourceFromAttributes } from '@opentelemetry/resources'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import type { ScoreRecord } from '../model/index.ts'
import type { PassThreshold } from './score-attributes.ts'
import { evaluationAttributes, scoreSpanAttributes } from './score-attributes.ts'
import { scoreSpanId } from './score-span-id.ts'
import { tracescoreVersion } from './tracescore-version.ts'

/** The name of the span event that repeats the evaluation result (GenAI semconv). */
const evaluationResultEvent = 'gen_ai.evaluation.result'

/** The resource of tracescore's own spans: `service.name=tracescore` plus any extra attributes. */
export function scoreSpanResource(extra: Attributes = {}): Resource {
  return resourceFromAttributes({
    ...extra,
    'service.name': 'tracescore',
    'service.version': tracescoreVersion,
  })
}

/**
 * Attributes of the link to the agent span. The link duplicates the parent, and Jaeger's OTLP
 * translator merges such a link into the parent reference, taking the link's type: without
 * `opentracing.ref_type=child_of` (semconv's compatibility attribute) the score span would become
 * FOLLOWS_FROM the agent span in Jaeger instead of its CHILD_OF.
 */
const agentSpanLinkAttributes: Attributes = { 'opentracing.ref_type': 'child_of' }

/** The instrumentation scope of score spans. */
const scoreSpanScope: InstrumentationScope = { name: 'tracescore', version: tracescoreVersion }

/** What a score span is built with besides the record. */
interface ScoreSpanOptions {
  /** One resource shared by all spans of a sink (the exporter groups spans by resource object). */
  resource: Resource
  passThreshold?: PassThreshold
}

/**
 * The score span of one record, built directly as a `ReadableSpan` so that its ids are ours:
 * the run's trace id, the deterministic span id from `scoreSpanId`, the agent-run span as parent
 * and as a link. Start and end are the score's timestamp; a failed scoring has status ERROR.
 */
export function toScoreSpan(
  record: ScoreRecord,
  { resource, passThreshold }: ScoreSpanOptions,
): ReadableSpan {
  const traceId = record.traceId.toLowerCase()
  const agentSpan: SpanContext = {
    traceId,
    spanId: record.spanId.toLowerCase(),
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  }
  const context: SpanContext = {
    traceId,
    spanId: scoreSpanId(traceId, agentSpan.spanId, record.scorerId),
    traceFlags: TraceFlags.SAMPLED,
  }
  const time = millisToHrTime(record.timestampMs)
  return {
    name: `evaluation ${record.scorerId}`,
    kind: SpanKind.INTERNAL,
    spanContext: () => context,
    parentSpanContext: agentSpan,
    startTime: time,
    endTime: time,
    duration: [0, 0],
    ended: true,
    status: record.error
      ? { code: SpanStatusCode.ERROR, message: record.error.message }
      : { code: SpanStatusCode.UNSET },
    attributes: scoreSpanAttributes(record, passThreshold),
    links: [{ context: agentSpan, attributes: agentSpanLinkAttributes }],
    events: [{ name: evaluationResultEvent, time, attributes: evaluationAttributes(record, passThreshold) }],
    resource,
    instrumentationScope: scoreSpanScope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  }
}
