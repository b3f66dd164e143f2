import type { ChatMessage, ChatPart } from './chat-message.ts'
import { parseMessages } from './parse-messages.ts'
import { isRecord } from './read-attribute.ts'

/*
 * The providers' own request and response bodies, as many tracing SDKs and hand-written spans
 * record a model call (the JSON as sent and received, under attribute names of their own): OpenAI
 * chat completions and responses, Anthropic messages, Gemini `generateContent`, and the common
 * `{replies: [...]}` / `{message: {...}}` answers. Message-level shapes (content blocks, tool calls,
 * Gemini parts) are read by `parseMessages`; this file reads the envelopes around them.
 */

/** A model call's prompt (system first) from a provider request body; undefined when `value` is none. */
export function requestMessages(value: unknown): ChatMessage[] | undefined {
  if (!isRecord(value)) return undefined
  const system = systemMessages(
    value.system ?? value.systemInstruction ?? value.system_instruction ?? configSystem(value),
  )
  let messages: ChatMessage[] | undefined
  if (Array.isArray(value.messages)) messages = parseMessages(value.messages)
  else if (Array.isArray(value.contents)) messages = parseMessages(value.contents.map(geminiContent))
  else if (value.input !== undefined && (typeof value.model === 'string' || value.instructions !== undefined))
    messages = responsesInput(value.input)
  else if (typeof value.prompt === 'string' && typeof value.model === 'string')
    messages = [{ role: 'user', parts: [{ type: 'text', text: value.prompt }] }]
  if (!messages) return undefined
  const instructions = typeof value.instructions === 'string' ? systemMessages(value.instructions) : []
  return [...instructions, ...system, ...messages]
}

/** What a model call answered, from a provider response body; undefined when `value` is none. */
export function responseMessages(value: unknown): ChatMessage[] | undefined {
  if (!isRecord(value)) return undefined
  if (Array.isArray(value.choices)) {
    const choice = value.choices[0]
    if (!isRecord(choice)) return undefined
    const message = isRecord(choice.message)
      ? choice.message
      : isRecord(choice.delta)
        ? choice.delta
        : undefined
    if (message) return parseMessages([{ ...message, role: 'assistant' }])
    return typeof choice.text === 'string' ? assistantText(choice.text) : undefined
  }
  if (Array.isArray(value.candidates)) {
    const content = isRecord(value.candidates[0]) ? value.candidates[0].content : undefined
    return isRecord(content) ? parseMessages([{ ...content, role: 'assistant' }]) : undefined
  }
  if (value.type === 'message' && value.role === 'assistant' && Array.isArray(value.content))
    return parseMessages([value])
  if (Array.isArray(value.output) && (value.object === 'response' || typeof value.model === 'string'))
    return [{ role: 'assistant', parts: value.output.flatMap(outputItemParts) }]
  if (Array.isArray(value.replies)) return assistantOnly(parseMessages(value.replies))
  if (isRecord(value.message) && value.message.role === 'assistant') return parseMessages([value.message])
  // Bedrock Converse: `{output: {message: {role: 'assistant', content: [{text} | {toolUse}]}}, stopReason}`.
  if (isRecord(value.output) && isRecord(value.output.message) && value.output.message.role === 'assistant')
    return parseMessages([value.output.message])
  // A chat completion's message alone (`choices[0].message`, as some tracing SDKs record the answer).
  if (value.role === 'assistant' && (Array.isArray(value.tool_calls) || typeof value.content === 'string'))
    return parseMessages([value])
  return undefined
}

function assistantText(text: string): ChatMessage[] {
  return [{ role: 'assistant', parts: [{ type: 'text', text }] }]
}

/** Messages that are all the assistant's (an answer), else undefined. */
export function assistantOnly(messages: ChatMessage[] | undefined): ChatMessage[] | undefined {
  return messages && messages.length > 0 && messages.every((m) => m.role === 'assistant')
    ? messages
    : undefined
}

/** Gemini's `config.systemInstruction` (the Python SDK's `GenerateContentConfig`). */
function configSystem(value: Record<string, unknown>): unknown {
  const config = isRecord(value.config)
    ? value.config
    : isRecord(value.generationConfig)
      ? value.generationConfig
      : {}
  return config.systemInstruction ?? config.system_instruction
}

/** System text in any of its request forms: a string, text blocks, or a Gemini `Content`. */
function systemMessages(value: unknown): ChatMessage[] {
  if (typeof value === 'string')
    return value.length > 0 ? [{ role: 'system', parts: [{ type: 'text', text: value }] }] : []
  const blocks =
    isRecord(value) && Array.isArray(value.parts) ? value.parts : Array.isArray(value) ? value : []
  const texts = blocks.flatMap((block) =>
    typeof block === 'string'
      ? [block]
      : isRecord(block) && typeof block.text === 'string'
        ? [block.text]
        : [],
  )
  return texts.length > 0 ? [{ role: 'system', parts: [{ type: 'text', text: texts.join('\n') }] }] : []
}

/** A Gemini `Content` without a role is the user's (a bare `contents: ['text']` too). */
function geminiContent(content: unknown): unknown {
  if (typeof content === 'string') return { role: 'user', parts: [{ text: content }] }
  return isRecord(content) && content.role === undefined ? { ...content, role: 'user' } : content
}

/** OpenAI Responses `input`: a string, or items (messages, function calls and their outputs). */
function responsesInput(input: unknown): ChatMessage[] | undefined {
  if (typeof input === 'string') return [{ role: 'user', parts: [{ type: 'text', text: input }] }]
  if (!Array.isArray(input)) return undefined
  const messages: ChatMessage[] = []
  for (const item of input) {
    if (!isRecord(item)) continue
    if (typeof item.role === 'string') {
      const parsed = parseMessages([item])
      if (parsed) messages.push(...parsed)
      continue
    }
    const parts = outputItemParts(item)
    if (parts.length === 0) continue
    const role = parts[0]!.type === 'tool-result' ? 'tool' : 'assistant'
    const last = messages[messages.length - 1]
    if (last?.role === role) last.parts.push(...parts)
    else messages.push({ role, parts })
  }
  return messages
}

/** The parts of one Responses output (or input) item: a message's text, a function call or its output. */
function outputItemParts(item: unknown): ChatPart[] {
  if (!isRecord(item)) return []
  if (item.type === 'message')
    return parseMessages([{ ...item, role: item.role ?? 'assistant' }])?.[0]?.parts ?? []
  return parseMessages([{ role: 'assistant', content: [item] }])?.[0]?.parts ?? []
}
