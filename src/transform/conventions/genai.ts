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
    conversationId: readString(span.attributes, 'gen_ai.conversation.id'),
  }),
  instructions: (span, notes) =>
    textsOfInstructions(readJson(span.attributes, 'gen_ai.system_instructions', notes, span.spanId)),
  agentInput: (span, notes) => readInput(span, notes),
  agentOutput: (span, notes) => readOutput(span, notes),
  modelInput(span, notes) {
    const messages = readInput(span, notes)
    const instructions = textsOfInstructions(
      readJson(span.attributes, 'gen_ai.system_instructions', notes, span.spanId),
    )
    if (!instructions) return messages
    const system: ChatMessage[] = instructions.map((text) => ({
      role: 'system',
      parts: [{ type: 'text', text }],
    }))
    return [...system, ...(messages ?? [])]
  },
  modelOutput: (span, notes) => readOutput(span, notes),
  toolCall(span, notes) {
    const attributes = span.attributes
    return {
      toolCallId: readString(attributes, 'gen_ai.tool.call.id'),
      toolName: readString(attributes, 'gen_ai.tool.name'),
      args: readJson(attributes, 'gen_ai.tool.call.arguments', notes, span.spanId),
      result: readJson(attributes, 'gen_ai.tool.call.result', notes, span.spanId),
      hasResult: hasAttribute(attributes, 'gen_ai.tool.call.result'),
    }
  },
  metadata: (span) => ({ ...readPrefixed(span.attributes, 'ai.settings.context') }),
}

function readInput(span: Span, notes: Notes): ChatMessage[] | undefined {
  if (hasAttribute(span.attributes, 'gen_ai.input.messages')) {
    const parsed = parseMessages(readJson(span.attributes, 'gen_ai.input.messages', notes, span.spanId))
    if (parsed) return parsed
    notes.add(`gen_ai.input.messages of span ${span.spanId} could not be read`)
  }
  const fromEvents = span.events.flatMap((event) => messageFromEvent(event) ?? [])
  return fromEvents.length > 0 ? fromEvents : undefined
}

function readOutput(span: Span, notes: Notes): ChatMessage[] | undefined {
  if (hasAttribute(span.attributes, 'gen_ai.output.messages')) {
    const parsed = parseMessages(readJson(span.attributes, 'gen_ai.output.messages', notes, span.spanId))
    if (parsed) return parsed
    notes.add(`gen_ai.output.messages of span ${span.spanId} could not be read`)
  }
  const choices = span.events.filter((event) => event.name === 'gen_ai.choice')
  const messages = choices.flatMap((event) => choiceMessage(event) ?? [])
  return messages.length > 0 ? messages : undefined
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
  const message = isRecord(body.message) ? body.message : body
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
