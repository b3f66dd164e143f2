import type { Attributes, Span, SpanEvent } from '../../model/index.ts'

/** The trace id every test span uses unless told otherwise. */
export const TRACE_ID = '5b8efff798038103d269b633813fc60c'

const BASE_NANOS = 1_764_500_000_000_000_000n

/** A span for tests: times are milliseconds after a fixed base, everything else defaults. */
export function span({
  id,
  parent,
  name = 'span',
  start = 0,
  end = start + 10,
  attributes = {},
  events = [],
  error,
  resource = { 'service.name': 'test-service' },
  traceId = TRACE_ID,
}: {
  id: string
  parent?: string
  name?: string
  start?: number
  end?: number
  attributes?: Attributes
  events?: { name: string; at?: number; attributes: Attributes }[]
  error?: string
  resource?: Attributes
  traceId?: string
}): Span {
  const nanos = (ms: number) => (BASE_NANOS + BigInt(ms) * 1_000_000n).toString()
  const spanEvents: SpanEvent[] = events.map((event) => ({
    name: event.name,
    timeUnixNano: nanos(event.at ?? start),
    attributes: event.attributes,
  }))
  return {
    traceId,
    spanId: id.padStart(16, '0'),
    ...(parent ? { parentSpanId: parent.padStart(16, '0') } : {}),
    name,
    kind: 1,
    startTimeUnixNano: nanos(start),
    endTimeUnixNano: nanos(end),
    attributes,
    events: spanEvents,
    links: [],
    status: error === undefined ? { code: 1 } : { code: 2, message: error },
    resource,
    scope: { name: 'test' },
  }
}

/** The 16-hex span id `span()` gives for a short id. */
export function sid(id: string): string {
  return id.padStart(16, '0')
}

/**
 * A model call as an application's own loop records it (no known vocabulary): the OpenAI chat
 * request's messages under `app.input` and the answer (a completion or its message) under
 * `app.output`, under span `a`, 5 ms long.
 */
export function appModelSpan(id: string, start: number, messages: object[], answer: object): Span {
  return span({
    id,
    parent: 'a',
    name: 'chat',
    start,
    end: start + 5,
    attributes: { 'app.input': JSON.stringify({ messages }), 'app.output': JSON.stringify(answer) },
  })
}
