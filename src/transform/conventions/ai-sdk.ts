import type { Span } from '../../model/index.ts'
import { type ChatMessage, type ChatPart, toolCallPart } from '../chat-message.ts'
import type { Notes } from '../notes.ts'
import { parseArgs, parseMessages, parsePromptInput } from '../parse-messages.ts'
import { hasAttribute, isRecord, readJson, readString } from '../read-attribute.ts'
import type { ConventionReader, SpanRole } from './convention-reader.ts'
import { toolCallFromKeys } from './genai.ts'
import { textsOfInstructions } from './instructions.ts'
import { prefixedMetadata } from './prefixed-metadata.ts'

const AGENT_OPERATIONS = new Set(['ai.generateText', 'ai.streamText', 'ai.generateObject', 'ai.streamObject'])

function operationId(span: Span): string {
  return readString(span.attributes, 'ai.operationId') ?? span.name
}

/** The `ai.prompt` of a top-level call: `{system?, prompt?, messages?}`. */
function prompt(span: Span, notes: Notes): unknown {
  return readJson(span.attributes, 'ai.prompt', notes, span.spanId)
}

/** Response text, or the JSON of a generated object. */
function responseText(span: Span): string | undefined {
  const raw = span.attributes['ai.response.text'] ?? span.attributes['ai.response.object']
  return typeof raw === 'string' ? raw : undefined
}

/** `ai.response.toolCalls`: `[{toolCallId, toolName, input | args}]`. */
function responseToolCalls(span: Span, notes: Notes): ChatPart[] {
  const calls = readJson(span.attributes, 'ai.response.toolCalls', notes, span.spanId)
  if (!Array.isArray(calls)) return []
  const parts: ChatPart[] = []
  for (const call of calls) {
    if (!isRecord(call) || typeof call.toolName !== 'string') continue
    parts.push(toolCallPart(call.toolCallId, call.toolName, parseArgs(call.input ?? call.args)))
  }
  return parts
}

/**
 * Vercel AI SDK ≤6 telemetry (`ai.*` spans) and AI SDK 7's `LegacyOpenTelemetry` integration:
 * `ai.generateText` / `ai.streamText` roots, `.doGenerate` / `.doStream` model calls, `ai.toolCall`.
 */
export const aiSdkReader: ConventionReader = {
  convention: 'ai-sdk',
  matches: (span) => typeof span.attributes['ai.operationId'] === 'string' || span.name.startsWith('ai.'),
  role(span): SpanRole {
    const id = operationId(span)
    if (AGENT_OPERATIONS.has(id)) return 'agent'
    if (id === 'ai.toolCall') return 'tool'
    if (id.endsWith('.doGenerate') || id.endsWith('.doStream')) return 'model'
    return 'other'
  },
  identity: (span) => {
    const functionId = readString(span.attributes, 'ai.telemetry.functionId')
    return functionId ? { agentName: functionId } : {}
  },
  instructions(span, notes) {
    const value = prompt(span, notes)
    return isRecord(value) ? textsOfInstructions(value.system) : undefined
  },
  agentInput: (span, notes) => parsePromptInput(prompt(span, notes)),
  agentOutput(span) {
    const text = responseText(span)
    return text === undefined ? undefined : [{ role: 'assistant', parts: [{ type: 'text', text }] }]
  },
  modelInput: (span, notes) =>
    parseMessages(readJson(span.attributes, 'ai.prompt.messages', notes, span.spanId)),
  modelOutput(span, notes) {
    const parts = responseToolCalls(span, notes)
    const text = responseText(span)
    if (text) parts.push({ type: 'text', text })
    const recorded = hasAttribute(span.attributes, 'ai.response.toolCalls') || text !== undefined
    const message: ChatMessage = { role: 'assistant', parts }
    return recorded ? [message] : undefined
  },
  toolCall(span, notes) {
    return toolCallFromKeys(span, notes, {
      id: 'ai.toolCall.id',
      name: 'ai.toolCall.name',
      args: 'ai.toolCall.args',
      result: 'ai.toolCall.result',
    })
  },
  metadata: (span) => prefixedMetadata(span.attributes, 'ai.settings.context', 'ai.telemetry.metadata'),
}
