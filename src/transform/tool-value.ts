import { parsePythonLiteral } from './python-literal.ts'
import { isRecord } from './read-attribute.ts'

/** Unwrapping is bounded: a value nested in this many wrappers is left as it is. */
const MAX_UNWRAP = 4

/**
 * A tool's returned value as the tool returned it, out of the forms instrumentations write it in,
 * whatever the convention: text holding JSON or a Python literal (`str(dict)`) is the value, and
 * a list of one content block (`[{"text": …}]`, `[{"type": "text", "text": …}]`, `[{"json": …}]`:
 * Bedrock / MCP / Anthropic tool-result content) is the block's value. Other values are kept.
 */
export function toolResultValue(value: unknown): unknown {
  let current = value
  for (let depth = 0; depth < MAX_UNWRAP; depth++) {
    const next = unwrapOnce(current)
    if (next === current) return current
    current = next
  }
  return current
}

function unwrapOnce(value: unknown): unknown {
  if (typeof value === 'string') return structuredText(value) ?? value
  if (isRecord(value)) return toolMessageContent(value) ?? value
  if (!Array.isArray(value) || value.length !== 1) return value
  const block = value[0]
  if (!isRecord(block)) return value
  const keys = Object.keys(block).filter((key) => key !== 'type')
  if (keys.length !== 1) return value
  if (keys[0] === 'json') return block.json
  if (keys[0] === 'text' && typeof block.text === 'string' && (block.type ?? 'text') === 'text')
    return block.text
  return value
}

/**
 * The content of a framework's tool message around a result: LangChain's serialised `ToolMessage`
 * (`{type:'tool', data:{content}}`, `{lc, id:[…,'ToolMessage'], kwargs:{content}}`), alone or as
 * the only key of an `{output: …}` envelope. Undefined for any other value.
 */
function toolMessageContent(value: Record<string, unknown>): unknown {
  const keys = Object.keys(value)
  if (keys.length === 1 && keys[0] === 'output' && isRecord(value.output))
    return toolMessageContent(value.output)
  if (value.type === 'tool' && isRecord(value.data) && 'content' in value.data) return value.data.content
  // A record about the call around its output: it names the tool and echoes what the tool received
  // (LlamaIndex's `ToolOutput`: `tool_name`, `raw_input`, `raw_output`, `blocks`).
  if ('tool_name' in value && ('raw_input' in value || 'input' in value)) {
    if ('raw_output' in value) return value.raw_output
    if ('output' in value) return value.output
  }
  const id = value.id
  if (Array.isArray(id) && id[id.length - 1] === 'ToolMessage' && isRecord(value.kwargs))
    return value.kwargs.content
  return undefined
}

/** The value of text that is one JSON or Python object or list; undefined for any other text. */
function structuredText(text: string): unknown {
  const trimmed = text.trim()
  const first = trimmed[0]
  const last = trimmed[trimmed.length - 1]
  if (!((first === '{' && last === '}') || (first === '[' && last === ']'))) return undefined
  try {
    return JSON.parse(trimmed)
  } catch {
    return parsePythonLiteral(trimmed)
  }
}

/** `ValueError: …`, `Error: …`, `pkg.ToolException: …`: an exception's class before its message. */
const EXCEPTION_PREFIX = /^(?:[A-Za-z_][\w.]*\.)?[A-Z]?[A-Za-z]*(?:Error|Exception): (?=\S)/

/**
 * A failed tool's own message out of what instrumentations record around it: an SDK envelope that
 * names it (`Error running tool (non-fatal): {'tool_name': …, 'error': '<message>'}`), the
 * exception's class before it (`ValueError: <message>`), a JavaScript stack after it.
 */
export function toolErrorMessage(text: string): string {
  // A Python exception's repr before its traceback: `ValueError('<message>')Traceback …`.
  const repr = /^[A-Za-z_][\w.]*(?:Error|Exception)\((['"])(.*?)\1\)(?:\s*Traceback|$)/s.exec(text)
  if (repr) return repr[2]!
  let message = text
  const brace = message.indexOf('{')
  if (brace >= 0) {
    const envelope = structuredText(message.slice(brace))
    if (isRecord(envelope) && typeof envelope.error === 'string') message = envelope.error
  }
  const stack = message.search(/\n\s*at /)
  if (stack > 0) message = message.slice(0, stack).trimEnd()
  // `<message>\n\n<Class>: <message>`: the message, then the stack's first line repeating it.
  const repeat = message.indexOf('\n\n')
  if (repeat > 0 && message.slice(repeat + 2).replace(EXCEPTION_PREFIX, '') === message.slice(0, repeat))
    message = message.slice(0, repeat)
  return message.replace(EXCEPTION_PREFIX, '')
}

/**
 * The call id a tool's result envelope names, a level or two down: LangChain's `ToolMessage`
 * (`{output: {kwargs: {tool_call_id}}}`), a tool message object (`{tool_call_id, content}`).
 * Undefined for any other value.
 */
export function toolCallIdIn(value: unknown, depth = 0): string | undefined {
  if (!isRecord(value) || depth > 2) return undefined
  const id = value.tool_call_id ?? value.toolCallId
  if (typeof id === 'string' && id.length > 0) return id
  return toolCallIdIn(value.output, depth + 1) ?? toolCallIdIn(value.kwargs, depth + 1)
}
