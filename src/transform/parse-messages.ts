import { type ChatMessage, type ChatPart, toolCallPart, toolResultPart } from './chat-message.ts'
import { isRecord, parseJsonValue } from './read-attribute.ts'

/**
 * Reads a list of chat messages in any of the shapes the conventions write: GenAI semconv
 * `{role, parts:[{type:'text', content}...]}`, AI SDK model messages `{role, content: string |
 * parts}`, AI SDK UI messages `{role, parts}`, Mastra stored messages `{role, content:{format:2,
 * parts}}`, and OpenAI chat messages `{role, content, tool_calls}`. Undefined when `value` is
 * not a list of messages.
 */
export function parseMessages(value: unknown): ChatMessage[] | undefined {
  if (isRecord(value) && Array.isArray(value.messages)) return parseMessages(value.messages)
  if (!Array.isArray(value)) return undefined
  const messages: ChatMessage[] = []
  for (const item of value) {
    const message = parseMessage(item)
    if (message) messages.push(message)
  }
  return value.length > 0 && messages.length === 0 ? undefined : messages
}

/**
 * Reads what a caller passed to an agent: a plain prompt string (one user message), a list of
 * strings (one user message each), a message list, or an object with `system` / `prompt` / `messages` (AI SDK `ai.prompt`).
 */
export function parsePromptInput(value: unknown): ChatMessage[] | undefined {
  if (typeof value === 'string') return [{ role: 'user', parts: [{ type: 'text', text: value }] }]
  if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string')) {
    return value.map((text: string) => ({ role: 'user', parts: [{ type: 'text', text }] }))
  }
  if (Array.isArray(value)) return parseMessages(value)
  if (!isRecord(value)) return undefined
  const messages: ChatMessage[] = []
  const system = value.system
  if (typeof system === 'string') messages.push({ role: 'system', parts: [{ type: 'text', text: system }] })
  else if (Array.isArray(system)) append(messages, parseMessages(system))
  if (Array.isArray(value.messages)) append(messages, parseMessages(value.messages))
  const prompt = value.prompt
  if (typeof prompt === 'string') messages.push({ role: 'user', parts: [{ type: 'text', text: prompt }] })
  else if (Array.isArray(prompt)) append(messages, parseMessages(prompt))
  if (messages.length > 0) return messages
  if (typeof value.text === 'string') return [{ role: 'user', parts: [{ type: 'text', text: value.text }] }]
  return undefined
}

/** Appends without spreading (a spread of a very long list overflows the call stack). */
function append(target: ChatMessage[], items: readonly ChatMessage[] | undefined): void {
  for (const item of items ?? []) target.push(item)
}

/** Role names producers write → neutral roles (a Map: a role `constructor` is just unknown). */
const ROLE_ALIASES = new Map<string, ChatMessage['role']>([
  ['system', 'system'],
  ['developer', 'system'],
  ['user', 'user'],
  ['human', 'user'],
  ['assistant', 'assistant'],
  ['ai', 'assistant'],
  ['model', 'assistant'],
  ['tool', 'tool'],
  ['function', 'tool'],
  ['ipython', 'tool'],
])

function parseMessage(item: unknown): ChatMessage | undefined {
  if (!isRecord(item)) return undefined
  const role = typeof item.role === 'string' ? ROLE_ALIASES.get(item.role.toLowerCase()) : undefined
  if (!role) return undefined
  const parts: ChatPart[] = []
  const content = item.content
  if (Array.isArray(item.parts) && item.parts.length > 0) {
    // AI SDK UI messages may carry a `content` string mirror of the same parts.
    for (const part of item.parts) parts.push(...parsePart(part))
  } else if (typeof content === 'string') {
    if (role === 'tool') parts.push(toolResultFromOpenAi(item, content))
    else if (content.length > 0) parts.push({ type: 'text', text: content })
  } else if (Array.isArray(content)) {
    for (const part of content) parts.push(...parsePart(part))
  } else if (isRecord(content) && Array.isArray(content.parts)) {
    for (const part of content.parts) parts.push(...parsePart(part))
    if (content.parts.length === 0 && typeof content.content === 'string' && content.content.length > 0) {
      parts.push({ type: 'text', text: content.content })
    }
  }
  if (Array.isArray(item.tool_calls)) {
    for (const call of item.tool_calls) {
      const parsed = toolCallFromOpenAi(call)
      if (parsed) parts.push(parsed)
    }
  }
  // Bedrock-style producers send tool results as user messages.
  if (role === 'user' && parts.length > 0 && parts.every((part) => part.type === 'tool-result')) {
    return { role: 'tool', parts }
  }
  return { role, parts }
}

/** A tool message in the OpenAI chat shape: `{role:'tool', tool_call_id, content}`. */
function toolResultFromOpenAi(item: Record<string, unknown>, content: string): ChatPart {
  return toolResultPart(item.tool_call_id ?? item.id, item.name, parseJsonValue(content))
}

function toolCallFromOpenAi(call: unknown): ChatPart | undefined {
  if (!isRecord(call)) return undefined
  const fn = isRecord(call.function) ? call.function : call
  const name = fn.name
  if (typeof name !== 'string') return undefined
  return toolCallPart(call.id, name, parseArgs(fn.arguments))
}

/** Tool arguments as an object when they were serialized JSON. */
export function parseArgs(value: unknown): unknown {
  return typeof value === 'string' ? parseJsonValue(value) : value
}

/** Unwraps AI SDK tool outputs `{type:'json'|'text'|'error-text'|..., value}`. */
function unwrapToolOutput(output: unknown): { result: unknown; isError: boolean } {
  if (isRecord(output) && typeof output.type === 'string' && Object.hasOwn(output, 'value')) {
    const isError = output.type.startsWith('error')
    return { result: output.value, isError }
  }
  if (isRecord(output) && output.type === 'execution-denied') {
    return { result: output, isError: true }
  }
  return { result: output, isError: false }
}

function textOf(part: Record<string, unknown>): string | undefined {
  if (typeof part.text === 'string') return part.text
  if (typeof part.content === 'string') return part.content
  return undefined
}

function parsePart(part: unknown): ChatPart[] {
  if (typeof part === 'string') return [{ type: 'text', text: part }]
  if (isRecord(part) && part.type === undefined) return parseContentBlock(part)
  if (!isRecord(part) || typeof part.type !== 'string') return []
  const type = part.type
  switch (type) {
    case 'text':
    case 'input_text':
    case 'output_text': {
      const text = textOf(part)
      return text === undefined ? [] : [{ type: 'text', text }]
    }
    case 'reasoning': {
      const text = textOf(part) ?? (typeof part.reasoning === 'string' ? part.reasoning : undefined)
      return text === undefined ? [] : [{ type: 'reasoning', text }]
    }
    case 'tool_call':
    case 'tool-call': {
      const name = part.name ?? part.toolName
      if (typeof name !== 'string') return []
      return [
        toolCallPart(part.id ?? part.toolCallId, name, parseArgs(part.arguments ?? part.input ?? part.args)),
      ]
    }
    case 'tool_use':
      // Anthropic messages: `{type:'tool_use', id, name, input}`.
      return typeof part.name === 'string' ? [toolCallPart(part.id, part.name, parseArgs(part.input))] : []
    case 'tool_result':
      // Anthropic messages: `{type:'tool_result', tool_use_id, content, is_error}`.
      return [toolResultPart(part.tool_use_id, undefined, part.content, part.is_error === true)]
    case 'function_call':
      // OpenAI Responses input/output item: `{type:'function_call', call_id, name, arguments}`.
      return typeof part.name === 'string'
        ? [toolCallPart(part.call_id ?? part.id, part.name, parseArgs(part.arguments))]
        : []
    case 'function_call_output':
      return [toolResultPart(part.call_id, undefined, parseArgs(part.output))]
    case 'tool_call_response':
    case 'tool-result': {
      const id = part.id ?? part.toolCallId
      const raw = Object.hasOwn(part, 'response')
        ? part.response
        : Object.hasOwn(part, 'result')
          ? part.result
          : part.output
      const { result, isError } = unwrapToolOutput(parseArgs(raw))
      return [toolResultPart(id, part.toolName, result, isError || part.isError === true)]
    }
    case 'tool-invocation':
      return fromToolInvocation(part.toolInvocation)
    case 'dynamic-tool':
      return fromUiToolPart(part, typeof part.toolName === 'string' ? part.toolName : 'unknown')
    case 'file':
    case 'image':
    case 'blob':
    case 'uri':
      return fromFilePart(part)
    default:
      if (type.startsWith('tool-')) return fromUiToolPart(part, type.slice('tool-'.length))
      return []
  }
}

function fromFilePart(part: Record<string, unknown>): ChatPart[] {
  const mimeType = part.mediaType ?? part.mimeType ?? part.mime_type ?? 'application/octet-stream'
  const data = part.data ?? part.image ?? part.url ?? part.uri ?? part.content
  if (typeof data !== 'string') return []
  return [
    { type: 'file', mimeType: typeof mimeType === 'string' ? mimeType : 'application/octet-stream', data },
  ]
}

/** A Mastra `tool-invocation` part: a call, plus its result or error when settled. */
function fromToolInvocation(invocation: unknown): ChatPart[] {
  if (!isRecord(invocation) || typeof invocation.toolName !== 'string') return []
  const { toolCallId, toolName } = invocation
  const parts: ChatPart[] = [toolCallPart(toolCallId, toolName, invocation.args)]
  if (invocation.state === 'result') {
    parts.push(toolResultPart(toolCallId, toolName, invocation.result, invocation.isError === true))
  } else if (invocation.state === 'output-error') {
    parts.push(toolResultPart(toolCallId, toolName, invocation.errorText, true))
  }
  return parts
}

/** An AI SDK 5+ UI part `{type:'tool-<name>', toolCallId, input, output | errorText, state}`. */
function fromUiToolPart(part: Record<string, unknown>, toolName: string): ChatPart[] {
  const parts: ChatPart[] = [toolCallPart(part.toolCallId, toolName, part.input)]
  if (part.state === 'output-available') parts.push(toolResultPart(part.toolCallId, toolName, part.output))
  else if (part.state === 'output-error') {
    parts.push(toolResultPart(part.toolCallId, toolName, part.errorText, true))
  }
  return parts
}

/**
 * An untyped content block, as Bedrock-style producers (Strands) write them: `{text}`,
 * `{toolUse:{toolUseId, name, input}}`, `{toolResult:{toolUseId, content, status}}`,
 * `{reasoningContent:{reasoningText:{text}}}`.
 */
/**
 * A Gemini `functionResponse`: its `response` holds the function's output under `output` and its
 * error under `error` (the API's convention); a response with neither key is the output whole.
 */
function geminiFunctionResponse(fnResponse: Record<string, unknown>): ChatPart {
  const response = fnResponse.response
  if (isRecord(response)) {
    const failed = response.error !== undefined && response.error !== null
    if (failed && !Object.hasOwn(response, 'output'))
      return toolResultPart(fnResponse.id, fnResponse.name, response.error, true)
    if (!failed && Object.hasOwn(response, 'output') && Object.keys(response).length === 1)
      return toolResultPart(fnResponse.id, fnResponse.name, response.output)
  }
  return toolResultPart(fnResponse.id, fnResponse.name, response)
}

function parseContentBlock(block: Record<string, unknown>): ChatPart[] {
  if (typeof block.text === 'string') return [{ type: 'text', text: block.text }]
  const use = block.toolUse
  if (isRecord(use) && typeof use.name === 'string') {
    return [toolCallPart(use.toolUseId, use.name, parseArgs(use.input))]
  }
  const result = block.toolResult
  if (isRecord(result)) {
    const content = Array.isArray(result.content) ? result.content : []
    const values = content.map((item) => (isRecord(item) ? (item.json ?? item.text ?? item) : item))
    const value = values.length === 1 ? values[0] : values
    return [toolResultPart(result.toolUseId, undefined, value, result.status === 'error')]
  }
  // Gemini `generateContent` parts: `{functionCall:{id?, name, args}}`, `{functionResponse:{id?, name, response}}`.
  const fnCall = block.functionCall ?? block.function_call
  if (isRecord(fnCall) && typeof fnCall.name === 'string')
    return [toolCallPart(fnCall.id, fnCall.name, parseArgs(fnCall.args))]
  const fnResponse = block.functionResponse ?? block.function_response
  if (isRecord(fnResponse)) return [geminiFunctionResponse(fnResponse)]
  // Haystack's ChatMessage content: `{tool_call:{id, tool_name, arguments}}`, `{tool_call_result:{result, origin, error}}`.
  const call = block.tool_call
  if (isRecord(call) && typeof (call.tool_name ?? call.name) === 'string')
    return [toolCallPart(call.id, String(call.tool_name ?? call.name), parseArgs(call.arguments))]
  const called = block.tool_call_result
  if (isRecord(called)) {
    const origin = isRecord(called.origin) ? called.origin : {}
    return [toolResultPart(origin.id, origin.tool_name, called.result, called.error === true)]
  }
  const reasoning = isRecord(block.reasoningContent) ? block.reasoningContent.reasoningText : undefined
  if (isRecord(reasoning) && typeof reasoning.text === 'string')
    return [{ type: 'reasoning', text: reasoning.text }]
  return []
}
