import type { Attributes, Span } from '../../model/index.ts'
import type { ChatMessage } from '../chat-message.ts'
import type { Notes } from '../notes.ts'
import { parseMessages, parsePromptInput } from '../parse-messages.ts'
import { requestMessages, responseMessages } from '../provider-wire.ts'
import {
  hasAttribute,
  indexed,
  isRecord,
  parseIfStructured,
  readJson,
  readString,
  setOwn,
} from '../read-attribute.ts'
import { type SpanTree, walkBelow } from '../span-tree.ts'
import type { ConventionReader, SpanRole } from './convention-reader.ts'
import { modelContent } from './generic.ts'
import { copyPrefixed } from './prefixed-metadata.ts'

/** The OpenInference span kind, upper-cased (`AGENT`, `CHAIN`, `LLM`, `TOOL`...). */
export function kind(span: Span): string {
  return (readString(span.attributes, 'openinference.span.kind') ?? '').toUpperCase()
}

/** Rebuilds `llm.input_messages.*` / `llm.output_messages.*` into OpenAI-shaped messages. */
function flattenedMessages(attributes: Attributes, prefix: string): ChatMessage[] | undefined {
  const raw = flattenedDicts(attributes, prefix)
  return raw ? parseMessages(raw) : undefined
}

/** `llm.input_messages.*` / `llm.output_messages.*` as OpenAI-shaped message dicts, roles as written. */
export function flattenedDicts(
  attributes: Attributes,
  prefix: string,
): Record<string, unknown>[] | undefined {
  const groups = indexed(attributes, prefix)
  if (groups.size === 0) return undefined
  const raw: Record<string, unknown>[] = []
  for (const group of groups.values()) {
    const message: Record<string, unknown> = { role: group['message.role'] }
    let hasContents = false
    let hasCalls = false
    for (const key in group) {
      hasContents ||= key.startsWith('message.contents.')
      hasCalls ||= key.startsWith('message.tool_calls.')
    }
    // Most messages are a role and a text: no grouping of their few keys.
    const contents = hasContents ? [...indexed(group, 'message.contents').values()] : []
    if (contents.length > 0) {
      message.content = contents.map((content) => ({
        type: content['message_content.type'] ?? 'text',
        text: content['message_content.text'],
        image: content['message_content.image.image.url'],
      }))
    } else if (typeof group['message.content'] === 'string') message.content = group['message.content']
    const calls = hasCalls ? [...indexed(group, 'message.tool_calls').values()] : []
    if (calls.length > 0) {
      message.tool_calls = calls.map((call) => ({
        id: call['tool_call.id'],
        function: { name: call['tool_call.function.name'], arguments: call['tool_call.function.arguments'] },
      }))
    }
    if (typeof group['message.tool_call_id'] === 'string')
      message.tool_call_id = group['message.tool_call_id']
    if (typeof group['message.name'] === 'string') message.name = group['message.name']
    raw.push(message)
  }
  return raw
}

/**
 * A span's role by its OpenInference kind, for readers of one framework's spans: AGENT is a run,
 * LLM a model call, TOOL a tool call unless `isTool` says it is none; a CHAIN is `chain`. Only
 * the kind is read for other spans (roles decide agent spans on the ingest path: keep it cheap).
 */
export function roleOfKind(
  span: Span,
  chain: SpanRole | ((span: Span) => SpanRole),
  isTool: (span: Span) => boolean = () => true,
): SpanRole {
  const value = kind(span)
  if (value === 'AGENT') return 'agent'
  if (value === 'LLM') return 'model'
  if (value === 'TOOL') return isTool(span) ? 'tool' : 'other'
  if (value !== 'CHAIN') return 'other'
  return typeof chain === 'function' ? chain(span) : chain
}

/** `input.value` / `output.value`: JSON when the mime type (or the text) says so, else plain text. */
export function ioValue(span: Span, which: 'input' | 'output', notes: Notes): unknown {
  const key = `${which}.value`
  if (!hasAttribute(span.attributes, key)) return undefined
  const mime = readString(span.attributes, `${which}.mime_type`)
  if (mime === 'text/plain') return span.attributes[key]
  return readJson(span.attributes, key, notes, span.spanId)
}

/**
 * A tool's arguments out of a Python call envelope that holds only keyword arguments
 * (`{"kwargs": {…}}`, `{"args": [], "kwargs": {…}}`: LlamaIndex's `FunctionTool`); anything else as it is.
 */
export function keywordArguments(value: unknown): unknown {
  if (!isRecord(value) || !isRecord(value.kwargs)) return value
  const keys = Object.keys(value)
  const positional = value.args
  const onlyKwargs =
    keys.length === 1 || (keys.length === 2 && Array.isArray(positional) && positional.length === 0)
  return onlyKwargs ? value.kwargs : value
}

/**
 * A model call's prompt: the flattened `llm.input_messages.*` (`dicts`, given by the caller,
 * which may look at them too: collecting them scans every attribute), else the provider request
 * (`{messages}`) in `input.value`.
 */
export function promptMessages(
  span: Span,
  notes: Notes,
  dicts: Record<string, unknown>[] | undefined,
): ChatMessage[] | undefined {
  const flattened = dicts ? parseMessages(dicts) : undefined
  if (flattened) return flattened
  const value = ioValue(span, 'input', notes)
  return isRecord(value) ? requestMessages(value) : undefined
}

/** An agent or chain output value as assistant messages. */
function outputMessages(value: unknown): ChatMessage[] | undefined {
  if (typeof value === 'string') return [{ role: 'assistant', parts: [{ type: 'text', text: value }] }]
  if (isRecord(value)) {
    for (const key of ['text', 'output', 'content', 'response', 'answer', 'final_output']) {
      const text = value[key]
      if (typeof text === 'string') return [{ role: 'assistant', parts: [{ type: 'text', text }] }]
    }
  }
  return parseMessages(value)
}

/** A root chain is a run when it calls a model and holds no AGENT span (else its agents are the runs). */
function chainActsAsAgent(tree: SpanTree, chain: Span): boolean {
  let callsModel = false
  const holdsAgent = walkBelow(tree, chain, (span) => {
    const value = kind(span)
    if (value === 'LLM') callsModel = true
    return value === 'AGENT' ? 'stop' : undefined
  })
  return callsModel && !holdsAgent
}

/** OpenInference (Arize Phoenix): `openinference.span.kind` AGENT / LLM / TOOL spans with flattened messages. */
export const openInferenceReader: ConventionReader = {
  convention: 'openinference',
  matches: (span) => typeof span.attributes['openinference.span.kind'] === 'string',
  role(span): SpanRole {
    const value = kind(span)
    // A root chain may be the agent (a chain that calls a model itself); see `confirmRun`.
    if (value === 'AGENT' || (value === 'CHAIN' && !span.parentSpanId)) return 'agent'
    if (value === 'LLM') return 'model'
    if (value === 'TOOL') return 'tool'
    return 'other'
  },
  identity(span) {
    const name = readString(span.attributes, 'agent.name') ?? readString(span.attributes, 'graph.node.name')
    return {
      agentName: name,
      // An AGENT span without an agent name is named after its agent (OpenAI Agents JS).
      // So is a root chain that is a run (LangGraph names its graph's root chain after the agent).
      spanName:
        !name && (kind(span) === 'AGENT' || (kind(span) === 'CHAIN' && !span.parentSpanId))
          ? span.name
          : undefined,
      conversationId: readString(span.attributes, 'session.id'),
    }
  },
  instructions: () => undefined,
  agentInput(span, notes) {
    const flattened = flattenedMessages(span.attributes, 'llm.input_messages')
    // Roles alone (a chain's input messages without their content) say nothing.
    if (flattened?.some((message) => message.parts.length > 0)) return flattened
    const value = ioValue(span, 'input', notes)
    if (value === undefined) return undefined
    // LangChain chains take `{input}` / `{question}` / `{query}`.
    const text = isRecord(value)
      ? [value.input, value.question, value.query].find((v) => typeof v === 'string')
      : undefined
    return typeof text === 'string'
      ? [{ role: 'user', parts: [{ type: 'text', text }] }]
      : parsePromptInput(value)
  },
  agentOutput(span, notes) {
    const value = ioValue(span, 'output', notes)
    return value === undefined
      ? flattenedMessages(span.attributes, 'llm.output_messages')
      : outputMessages(value)
  },
  modelInput: (span, notes) =>
    promptMessages(span, notes, flattenedDicts(span.attributes, 'llm.input_messages')) ??
    modelContent(span).prompt,
  modelOutput(span, notes) {
    const flattened = flattenedMessages(span.attributes, 'llm.output_messages')
    if (flattened) return flattened
    // Or `output.value` the provider's response body, or any attribute holding one.
    return responseMessages(ioValue(span, 'output', notes)) ?? modelContent(span).answer
  },
  toolCall(span, notes) {
    const attributes = span.attributes
    const argsKey = hasAttribute(attributes, 'input.value') ? 'input.value' : 'tool.parameters'
    return {
      toolCallId: readString(attributes, 'tool_call.id') ?? readString(attributes, 'tool.id'),
      toolName: readString(attributes, 'tool.name'),
      args: keywordArguments(readJson(attributes, argsKey, notes, span.spanId)),
      result: ioValue(span, 'output', notes),
      hasResult: hasAttribute(attributes, 'output.value'),
    }
  },
  confirmRun: (span, tree) => kind(span) !== 'CHAIN' || chainActsAsAgent(tree, span),
  metadata(span, notes) {
    const out: Record<string, unknown> = {}
    const blob = readJson(span.attributes, 'metadata', notes, span.spanId)
    if (isRecord(blob)) for (const [key, value] of Object.entries(blob)) setOwn(out, key, value)
    copyPrefixed(out, span.attributes, 'metadata')
    if (hasAttribute(span.attributes, 'tag.tags')) out.tags = parseIfStructured(span.attributes['tag.tags'])
    return out
  },
}
