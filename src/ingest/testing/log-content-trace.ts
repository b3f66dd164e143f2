import type { AgentRun, LogRecord, Span } from '../../model/index.ts'

/**
 * A GenAI trace whose content is only in log records, as OpenTelemetry's GenAI instrumentations
 * write it with content going to events: an agent span and a chat span with structure and no
 * text, and the chat call's content as log records on the chat span, in the two forms the
 * conventions define. The run's truth is {@link LOG_CONTENT_TRUTH}.
 */

/** The agent span and the chat span (ids fixed: traces differ by trace id). */
export const AGENT = '00f067aa0ba902b7'
export const CHAT = '00f067aa0ba902b8'

/** What the run holds when its content is read: the system prompt, the history, the turn, the answer. */
export const LOG_CONTENT_TRUTH = {
  system: ['You are a terse weather bot.'],
  remembered: [
    ['user', 'Weather in Paris?'],
    ['assistant', 'Sunny, 21 °C.'],
  ],
  input: [['user', 'And tomorrow?']],
  output: ['Rain, 15 °C.'],
} as const

const span = (
  traceId: string,
  spanId: string,
  parentSpanId: string | undefined,
  attributes: Span['attributes'],
): Span => ({
  traceId,
  spanId,
  parentSpanId,
  name: String(attributes['gen_ai.operation.name']),
  kind: 1,
  startTimeUnixNano: '1000',
  endTimeUnixNano: '2000',
  attributes,
  events: [],
  links: [],
  status: { code: 0 },
  resource: { 'service.name': 'weather-bot' },
  scope: { name: 'opentelemetry.instrumentation.openai_v2' },
})

/** The spans an instrumentation writes with content going to log records: structure, no text. */
export const contentlessSpans = (traceId: string): Span[] => [
  span(traceId, AGENT, undefined, {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': 'weather',
  }),
  span(traceId, CHAT, AGENT, {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'openai',
    'gen_ai.request.model': 'gpt-4o-mini',
  }),
]

const log = (traceId: string, eventName: string, time: string, extra: Partial<LogRecord>): LogRecord => ({
  traceId,
  spanId: CHAT,
  timeUnixNano: time,
  observedTimeUnixNano: time,
  severityNumber: 9,
  eventName,
  body: null,
  attributes: {},
  resource: { 'service.name': 'weather-bot' },
  scope: { name: 'opentelemetry.instrumentation.openai_v2' },
  ...extra,
})

const text = (content: string) => [{ type: 'text', content }]

/** GenAI semconv ≥1.37: one details event, its messages structured (as `AnyValue`s, not JSON text). */
export const detailsEvents = (traceId: string): LogRecord[] => [
  log(traceId, 'gen_ai.client.inference.operation.details', '1500', {
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.system_instructions': text('You are a terse weather bot.'),
      'gen_ai.input.messages': [
        { role: 'user', parts: text('Weather in Paris?') },
        { role: 'assistant', parts: text('Sunny, 21 °C.') },
        { role: 'user', parts: text('And tomorrow?') },
      ],
      'gen_ai.output.messages': [{ role: 'assistant', parts: text('Rain, 15 °C.'), finish_reason: 'stop' }],
    },
  }),
]

/** GenAI semconv ≤1.36 events as log records: the content in their bodies. */
export const perMessageEvents = (traceId: string): LogRecord[] => [
  log(traceId, 'gen_ai.system.message', '1501', { body: { content: 'You are a terse weather bot.' } }),
  log(traceId, 'gen_ai.user.message', '1502', { body: { content: 'Weather in Paris?' } }),
  log(traceId, 'gen_ai.assistant.message', '1503', { body: { content: 'Sunny, 21 °C.' } }),
  log(traceId, 'gen_ai.user.message', '1504', { body: { content: 'And tomorrow?' } }),
  log(traceId, 'gen_ai.choice', '1505', {
    body: { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Rain, 15 °C.' } },
  }),
]

/** The run's content in the shape of {@link LOG_CONTENT_TRUTH}. */
export function contentOf(run: Pick<AgentRun, 'input' | 'output'>) {
  const texts = (parts: readonly { type: string; text?: string }[]) =>
    parts.filter((p) => p.type === 'text').map((p) => p.text)
  return {
    system: run.input.systemMessages.map((m) =>
      typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
    ),
    remembered: run.input.rememberedMessages.map((m) => [m.role, ...texts(m.content.parts)]),
    input: run.input.inputMessages.map((m) => [m.role, ...texts(m.content.parts)]),
    output: run.output.flatMap((m) => texts(m.content.parts)),
  }
}
