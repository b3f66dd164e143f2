import type { Span, SpanEvent } from '../../model/index.ts'
import type { ChatMessage } from '../chat-message.ts'
import type { Notes } from '../notes.ts'
import { parseMessages } from '../parse-messages.ts'
import {
  hasAttribute,
  isRecord,
  parseJsonValue,
  readJson,
  readPrefixed,
  readString,
  setOwn,
} from '../read-attribute.ts'
import type { ConventionReader, SpanRole } from './convention-reader.ts'
import { genericReader, modelContent } from './generic.ts'
import { textsOfInstructions } from './instructions.ts'

const MODEL_OPERATIONS = new Set(['chat', 'generate_content', 'text_completion'])

/** Per-message events of GenAI semconv ≤1.36 (deprecated in 1.37, still emitted), by role. */
const MESSAGE_EVENTS = new Map<string, ChatMessage['role']>([
  ['gen_ai.system.message', 'system'],
  ['gen_ai.user.message', 'user'],
  ['gen_ai.assistant.message', 'assistant'],
  ['gen_ai.tool.message', 'tool'],
])

function hasGenAiEvents(span: Span): boolean {
  return span.events.some((event) => MESSAGE_EVENTS.has(event.name) || event.name === 'gen_ai.choice')
}

/**
 * OpenTelemetry GenAI semantic conventions: `gen_ai.operation.name` spans (≥1.37, also what
 * AI SDK 7's `@ai-sdk/otel` writes) and the older per-message events.
 */
export const genAiReader: ConventionReader = {
  convention: 'genai',
  matches: (span) => typeof span.attributes['gen_ai.operation.name'] === 'string' || hasGenAiEvents(span),
  role(span): SpanRole {
    const operation = readString(span.attributes, 'gen_ai.operation.name')
    if (operation === 'invoke_agent') return 'agent'
    if (operation === 'execute_tool') return 'tool'
    if (operation === 'agent_step') return 'step'
    if (operation && MODEL_OPERATIONS.has(operation)) return 'model'
    if (!operation && hasGenAiEvents(span)) return 'model'
    return 'other'
  },
  identity: (span) => ({
    agentId: readString(span.attributes, 'gen_ai.agent.id'),
    agentName: readString(span.attributes, 'gen_ai.agent.name'),
    // The general `session.id` where no GenAI conversation id is recorded (Strands).
    conversationId:
      readString(span.attributes, 'gen_ai.conversation.id') ?? readString(span.attributes, 'session.id'),
  }),
  instructions: (span, notes) => readInstructions(span, notes),
  agentInput: (span, notes) => readInput(span, notes),
  agentOutput: (span, notes) => readOutput(span, notes),
  modelInput(span, notes) {
    const messages = readInput(span, notes)
    const instructions = readInstructions(span, notes)
    if (!instructions) return messages
    const system: ChatMessage[] = instructions.map((text) => ({
      role: 'system',
      parts: [{ type: 'text', text }],
    }))
    return [...system, ...(messages ?? [])]
  },
  modelOutput: (span, notes) => readOutput(span, notes),
  toolCall(span, notes) {
    return toolCallFromKeys(span, notes, {
      id: 'gen_ai.tool.call.id',
      name: 'gen_ai.tool.name',
      args: 'gen_ai.tool.call.arguments',
      result: 'gen_ai.tool.call.result',
    })
  },
  metadata: (span) => readPrefixed(span.attributes, 'ai.settings.context'),
}

/**
 * The GenAI reader of spans no framework reader took: a model call whose content no GenAI key
 * holds is read from a provider's request and response body under names of the producer's own.
 * (Readers that build on `genAiReader` keep their own order of sources.)
 */
export const genAiSpanReader: ConventionReader = {
  ...genAiReader,
  modelInput: (span, notes) => genAiReader.modelInput(span, notes) ?? modelContent(span).prompt,
  modelOutput: (span, notes) => genAiReader.modelOutput(span, notes) ?? modelContent(span).answer,
  toolCall(span, notes) {
    // What no GenAI key holds, read from keys of the producer's own (`<vendor>.tool.call.arguments`).
    const call = genAiReader.toolCall(span, notes)
    if (call.toolCallId !== undefined && call.args !== undefined && call.hasResult) return call
    const own = genericReader.toolCall(span, notes)
    return {
      toolCallId: call.toolCallId ?? own.toolCallId,
      toolName: call.toolName ?? own.toolName,
      args: call.args ?? own.args,
      result: call.hasResult ? call.result : own.result,
      hasResult: call.hasResult || own.hasResult,
    }
  },
}

/** The event that carries a model call's content in GenAI semconv ≥1.37 when it is not on the span. */
const DETAILS_EVENT = 'gen_ai.client.inference.operation.details'

/**
 * A content key (`gen_ai.input.messages`, ...) of a span: the attribute, else every
 * `gen_ai.client.inference.operation.details` event's copy of it, in order (a span may carry
 * several, e.g. the conversation and then this step's tool results). Undefined when absent.
 */
function readContent(span: Span, key: string, notes: Notes): unknown[] | undefined {
  if (hasAttribute(span.attributes, key)) return [readJson(span.attributes, key, notes, span.spanId)]
  const values: unknown[] = []
  let fromLog = false
  for (const event of span.events) {
    if (event.name !== DETAILS_EVENT || !hasAttribute(event.attributes, key)) continue
    values.push(readJson(event.attributes, key, notes, span.spanId))
    fromLog ||= event.fromLog === true
  }
  if (fromLog) noteFromLogs(notes, CONTENT_PARTS[key] ?? key, DETAILS_EVENT)
  return values.length > 0 ? values : undefined
}

/** What the run notes call the part a content key holds. */
const CONTENT_PARTS: Record<string, string> = {
  'gen_ai.system_instructions': 'system instructions',
  'gen_ai.input.messages': 'input messages',
  'gen_ai.output.messages': 'output messages',
}

/**
 * Says in the run's notes that a part was read from log-based events (log records on the logs
 * topic, joined to their span) rather than from the span's attributes or span events. One note per
 * part and event form, however many spans: the notes say where content came from, not each call.
 */
function noteFromLogs(notes: Notes, part: string, events: string): void {
  notes.add(`${part} read from log records (${events} events)`)
}

/** The messages of a content key; a note when it is there but unreadable. */
function readMessages(span: Span, key: string, notes: Notes): ChatMessage[] | undefined {
  const values = readContent(span, key, notes)
  if (!values) return undefined
  const messages: ChatMessage[] = []
  for (const value of values) {
    const parsed = parseMessages(value)
    if (parsed) for (const message of parsed) messages.push(message)
    else notes.add(`${key} of span ${span.spanId} could not be read`)
  }
  return messages
}

function readInstructions(span: Span, notes: Notes): string[] | undefined {
  const values = readContent(span, 'gen_ai.system_instructions', notes) ?? []
  const texts = values.flatMap((value) => textsOfInstructions(value) ?? [])
  return texts.length > 0 ? texts : undefined
}

function readInput(span: Span, notes: Notes): ChatMessage[] | undefined {
  const messages = readMessages(span, 'gen_ai.input.messages', notes)
  if (messages) return messages
  const fromEvents = span.events.flatMap((event) => messageFromEvent(event) ?? [])
  if (fromEvents.length === 0) return undefined
  if (span.events.some((event) => event.fromLog && MESSAGE_EVENTS.has(event.name)))
    noteFromLogs(notes, 'input messages', 'gen_ai.*.message')
  return fromEvents
}

function readOutput(span: Span, notes: Notes): ChatMessage[] | undefined {
  const messages = readMessages(span, 'gen_ai.output.messages', notes)
  if (messages) return messages
  const choices = span.events.filter((event) => event.name === 'gen_ai.choice')
  const fromChoices = choices.flatMap((event) => choiceMessage(event) ?? [])
  if (fromChoices.length === 0) return undefined
  if (choices.some((event) => event.fromLog)) noteFromLogs(notes, 'output messages', 'gen_ai.choice')
  return fromChoices
}

/** A message from a `gen_ai.{system,user,assistant,tool}.message` event (its body flattened into attributes). */
function messageFromEvent(event: SpanEvent): ChatMessage | undefined {
  const role = MESSAGE_EVENTS.get(event.name)
  if (!role) return undefined
  const body = eventBody(event)
  return parseMessages([{ ...body, role }])?.[0]
}

function choiceMessage(event: SpanEvent): ChatMessage | undefined {
  const body = eventBody(event)
  // `message` is `{role, content, tool_calls}`; some producers (Strands) write the content itself.
  const message = isRecord(body.message)
    ? body.message
    : typeof body.message === 'string' || Array.isArray(body.message)
      ? { content: body.message }
      : body
  return parseMessages([{ ...message, role: 'assistant' }])?.[0]
}

/** The event body: a structured `body`/`message` attribute, or the attributes themselves with JSON strings parsed. */
function eventBody(event: SpanEvent): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(event.attributes)) {
    if (key === 'gen_ai.system' || key === 'gen_ai.provider.name') continue
    setOwn(body, key, key === 'content' ? value : parseJsonValue(value))
  }
  if (isRecord(body.body)) return body.body
  if (typeof body.content === 'string') {
    const parsed = parseJsonValue(body.content)
    if (Array.isArray(parsed)) body.content = parsed
  }
  return body
}

/** A tool span's call read from four attribute keys (arguments and result as JSON text or values). */
export function toolCallFromKeys(
  span: Span,
  notes: Notes,
  keys: { id: string; name: string; args: string; result: string },
): ReturnType<ConventionReader['toolCall']> {
  const attributes = span.attributes
  return {
    toolCallId: readString(attributes, keys.id),
    toolName: readString(attributes, keys.name),
    args: readJson(attributes, keys.args, notes, span.spanId),
    result: readJson(attributes, keys.result, notes, span.spanId),
    hasResult: hasAttribute(attributes, keys.result),
  }
}
