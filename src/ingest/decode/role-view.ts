import type { Attributes, InstrumentationScope, Span, SpanEvent } from '../../model/span.ts'
import { uint64ToDecimal } from './int64-decimal.ts'
import { addRole, checkKeyValue } from './proto-values.ts'
import type { ProtobufReader } from './protobuf-reader.ts'
import {
  EVENT_NAME,
  readParentId,
  SPAN_ATTRIBUTES,
  SPAN_END,
  SPAN_EVENTS,
  SPAN_KIND,
  SPAN_NAME,
  SPAN_PARENT_SPAN_ID,
  SPAN_START,
} from './read-span.ts'

const NONE: Attributes = Object.freeze({}) as Attributes
const NO_EVENTS = Object.freeze([]) as unknown as SpanEvent[]
const UNSET = Object.freeze({ code: 0 }) as Span['status']

/**
 * The role view of a `Span` message (`r.pos..end`, checked already by the scan): a `Span` with
 * what transform reads to tell what a span is to an agent run (`spanRole`, `isAgentRunSpan`,
 * `isGenAiSpan`) and what the assembler reads of a candidate (ids, end time) exactly as the
 * decoder gives them: ids, parent, name, kind, times, the role attributes (`role-attributes.ts`)
 * and the names of the events (no attributes); no other attribute, no links, an unset status.
 * Far cheaper than decoding the span, and nothing of it is kept: the assembler asks its
 * predicates of it and decodes the span only when the trace is read. `role-view.test.ts` checks,
 * on every span of every fixture, that the predicates answer it as they answer the decoded span.
 */
export function readRoleView(
  r: ProtobufReader,
  end: number,
  ids: { traceId: string; spanId: string },
  resource: Attributes,
  scope: InstrumentationScope,
): Span {
  let parentSpanId: string | undefined
  let name = ''
  let kind = 0
  let startTime = '0'
  let endTime = '0'
  let roles: Attributes | undefined
  let events = NO_EVENTS
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === SPAN_NAME) name = r.string(r.lengthEnd(end))
    else if (tag === SPAN_ATTRIBUTES) {
      const kvEnd = r.lengthEnd(end)
      const kvStart = r.pos
      if (checkKeyValue(r, kvEnd, false)) roles = addRole(r, kvStart, kvEnd, roles)
      r.pos = kvEnd
    } else if (tag === SPAN_EVENTS) {
      const eventEnd = r.lengthEnd(end)
      if (events === NO_EVENTS) events = [eventName(r, eventEnd)]
      else events.push(eventName(r, eventEnd)) // not a copy per event: hostile spans have thousands
    } else if (tag === SPAN_PARENT_SPAN_ID) parentSpanId = readParentId(r, end)
    else if (tag === SPAN_KIND) kind = r.int32(end)
    else if (tag === SPAN_START || tag === SPAN_END) {
      r.fixed64(end)
      if (tag === SPAN_START) startTime = uint64ToDecimal(r.lo, r.hi)
      else endTime = uint64ToDecimal(r.lo, r.hi)
    } else r.skip(tag, end)
  }
  return {
    traceId: ids.traceId,
    spanId: ids.spanId,
    parentSpanId,
    name,
    kind: (kind >= 0 && kind <= 5 ? kind : 0) as Span['kind'],
    startTimeUnixNano: startTime,
    endTimeUnixNano: endTime,
    attributes: roles ?? NONE,
    events,
    links: [],
    status: UNSET,
    resource,
    scope,
  }
}

/** A `Span.Event` with its name only. */
function eventName(r: ProtobufReader, end: number): SpanEvent {
  let name = ''
  while (r.pos < end) {
    const tag = r.tag(end)
    if (tag === EVENT_NAME) name = r.string(r.lengthEnd(end))
    else r.skip(tag, end)
  }
  return { name, timeUnixNano: '0', attributes: NONE }
}
