import type { Span } from '../../model/index.ts'
import { type ChatMessage, type ChatPart, toolCallPart } from '../chat-message.ts'
import type { Notes } from '../notes.ts'
import { parseArgs, parseMessages, parsePromptInput } from '../parse-messages.ts'
import {
  hasAttribute,
  isRecord,
  parseIfStructured,
  parseJsonValue,
  readJson,
  readString,
} from '../read-attribute.ts'
import type { ConventionReader, SpanRole } from './convention-reader.ts'
import { genAiReader } from './genai.ts'
import { textsOfInstructions } from './instructions.ts'
import { prefixedMetadata } from './prefixed-metadata.ts'

const TOOL_TYPES = new Set(['tool_call', 'mcp_tool_call', 'provider_tool_call', 'client_tool_call'])
const MODEL_TYPES = new Set(['model_generation', 'llm_generation'])

function spanType(span: Span): string | undefined {
  return readString(span.attributes, 'mastra.span.type')
}

/**
 * A Mastra span payload: `mastra.<type>.input|output`, or the generic `input`/`output` of
 * exporters before 1.0. Strings are written as they are and anything else as JSON, so only a
 * value that starts like JSON is parsed.
 */
function payload(span: Span, which: 'input' | 'output', notes: Notes): unknown {
  const type = spanType(span)
  const typed = `mastra.${type}.${which}`
  const key = hasAttribute(span.attributes, typed) ? typed : which
  if (!hasAttribute(span.attributes, key)) return undefined
  const raw = span.attributes[key]
  if (raw === undefined) return undefined
  const parsed = parseIfStructured(raw)
  if (parsed === raw && typeof raw === 'string' && /^\s*[[{]/.test(raw)) {
    notes.add(`${key} of span ${span.spanId} is not valid JSON (truncated?)`)
  }
  return parsed
}

/** A model-generation output `{text, toolCalls:[{toolCallId, toolName, args}]}` as one assistant message. */
function generationOutput(value: unknown): ChatMessage[] | undefined {
  if (typeof value === 'string') return [{ role: 'assistant', parts: [{ type: 'text', text: value }] }]
  if (!isRecord(value)) return undefined
  const parts: ChatPart[] = []
  if (Array.isArray(value.toolCalls)) {
    for (const call of value.toolCalls) {
      if (!isRecord(call)) continue
      const inner = isRecord(call.payload) ? call.payload : call
      if (typeof inner.toolName !== 'string') continue
      parts.push(toolCallPart(inner.toolCallId, inner.toolName, parseArgs(inner.args ?? inner.input)))
    }
  }
  if (typeof value.text === 'string' && value.text.length > 0) parts.push({ type: 'text', text: value.text })
  return [{ role: 'assistant', parts }]
}

function firstKey(attributes: Span['attributes'], keys: readonly string[]): string | undefined {
  return keys.find((key) => hasAttribute(attributes, key))
}

/** Mastra's OTel exporter (`@mastra/otel-exporter`, `mastra.span.type` on every span). */
export const mastraReader: ConventionReader = {
  convention: 'mastra',
  matches: (span) => typeof span.attributes['mastra.span.type'] === 'string',
  role(span): SpanRole {
    const type = spanType(span) ?? ''
    if (type === 'agent_run') return 'agent'
    if (MODEL_TYPES.has(type)) return 'model'
    if (TOOL_TYPES.has(type)) return 'tool'
    if (type === 'model_step') return 'step'
    return 'other'
  },
  identity(span) {
    const attributes = span.attributes
    return {
      agentId: readString(attributes, 'gen_ai.agent.id') ?? readString(attributes, 'agent.id'),
      agentName: readString(attributes, 'gen_ai.agent.name') ?? readString(attributes, 'agent.name'),
      conversationId:
        readString(attributes, 'gen_ai.conversation.id') ??
        readString(attributes, 'mastra.metadata.threadId') ??
        readString(attributes, 'threadId'),
    }
  },
  instructions(span, notes) {
    const raw = span.attributes['gen_ai.system_instructions']
    if (typeof raw === 'string') {
      // Mastra writes the instructions string as it is; only a JSON list is structured.
      const parsed = raw.trimStart().startsWith('[') ? parseJsonValue(raw) : raw
      return textsOfInstructions(parsed)
    }
    return textsOfInstructions(readJson(span.attributes, 'gen_ai.system_instructions', notes, span.spanId))
  },
  agentInput: (span, notes) => parsePromptInput(payload(span, 'input', notes)),
  agentOutput(span, notes) {
    const output = payload(span, 'output', notes)
    if (typeof output === 'string') return [{ role: 'assistant', parts: [{ type: 'text', text: output }] }]
    if (isRecord(output) && typeof output.text === 'string') {
      return [{ role: 'assistant', parts: [{ type: 'text', text: output.text }] }]
    }
    return undefined
  },
  modelInput(span, notes) {
    const input = payload(span, 'input', notes)
    return parseMessages(input) ?? genAiReader.modelInput(span, notes)
  },
  modelOutput(span, notes) {
    return generationOutput(payload(span, 'output', notes)) ?? genAiReader.modelOutput(span, notes)
  },
  toolCall(span, notes) {
    const attributes = span.attributes
    // 1.x writes gen_ai.tool.call.*; exporters before 1.0 wrote gen_ai.tool.input|output or input|output.
    const argsKey = firstKey(attributes, ['gen_ai.tool.call.arguments', 'gen_ai.tool.input', 'input'])
    const resultKey = firstKey(attributes, ['gen_ai.tool.call.result', 'gen_ai.tool.output', 'output'])
    return {
      toolCallId:
        readString(attributes, 'gen_ai.tool.call.id') ?? readString(attributes, 'mastra.metadata.toolCallId'),
      toolName: readString(attributes, 'gen_ai.tool.name') ?? readString(attributes, 'mastra.entity.name'),
      args: argsKey ? readJson(attributes, argsKey, notes, span.spanId) : undefined,
      result: resultKey ? readJson(attributes, resultKey, notes, span.spanId) : undefined,
      hasResult: resultKey !== undefined,
    }
  },
  metadata: (span) => prefixedMetadata(span.attributes, 'mastra.metadata'),
}
