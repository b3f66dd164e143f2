import type { Span } from '../../model/index.ts'
import { type ChatMessage, type ChatPart, toolCallPart, toolResultPart } from '../chat-message.ts'
import type { Notes } from '../notes.ts'
import { parsePromptInput } from '../parse-messages.ts'
import {
  hasAttribute,
  isRecord,
  parseIfStructured,
  plainAttributes,
  readJson,
  readString,
  setOwn,
} from '../read-attribute.ts'
import { type SpanTree, walkBelow } from '../span-tree.ts'
import type { ConventionReader, SpanRole } from './convention-reader.ts'

/** Custom metadata keys (`setCustomMetadataAttribute`) and the action's subtype share this prefix. */
const METADATA = 'genkit:metadata:'
const SUBTYPE = 'genkit:metadata:subtype'

/** Genkit's chat roles → neutral roles. */
const ROLES = new Map<string, ChatMessage['role']>([
  ['system', 'system'],
  ['user', 'user'],
  ['model', 'assistant'],
  ['tool', 'tool'],
])

/** `genkit:type` and, for actions, `genkit:metadata:subtype` (flow, model, tool, …). */
function genkitKind(span: Span): { type?: string; subtype?: string } {
  return {
    type: readString(span.attributes, 'genkit:type'),
    subtype: readString(span.attributes, SUBTYPE),
  }
}

/** Whether the span is a `generate` call made outside any Genkit action (no flow around it). */
function isRootGenerate(span: Span): boolean {
  const { type } = genkitKind(span)
  return (
    type === 'util' &&
    span.attributes['genkit:name'] === 'generate' &&
    span.attributes['genkit:isRoot'] === true
  )
}

/** Whether a model is called under `span` without passing through a tool (a nested flow's own). */
function callsModel(span: Span, tree: SpanTree): boolean {
  return walkBelow(tree, span, (next) => {
    const { subtype } = genkitKind(next)
    return subtype === 'model' ? 'stop' : subtype === 'tool' ? 'skip' : undefined
  })
}

/** `genkit:input` / `genkit:output`, JSON-encoded by Genkit; undefined when absent. */
function ioValue(span: Span, which: 'input' | 'output', notes: Notes): unknown {
  const key = `genkit:${which}`
  return hasAttribute(span.attributes, key) ? readJson(span.attributes, key, notes, span.spanId) : undefined
}

/** One Genkit part (`text`, `toolRequest`, `toolResponse`, `media`, `reasoning`) as neutral parts. */
function neutralParts(part: unknown): ChatPart[] {
  if (!isRecord(part)) return []
  if (typeof part.text === 'string') return [{ type: 'text', text: part.text }]
  if (typeof part.reasoning === 'string') return [{ type: 'reasoning', text: part.reasoning }]
  const request = part.toolRequest
  if (isRecord(request) && typeof request.name === 'string') {
    return [toolCallPart(request.ref, request.name, request.input ?? {})]
  }
  const response = part.toolResponse
  if (isRecord(response)) {
    return [toolResultPart(response.ref, response.name, response.output)]
  }
  const media = part.media
  if (isRecord(media) && typeof media.url === 'string') {
    const mimeType = typeof media.contentType === 'string' ? media.contentType : 'application/octet-stream'
    return [{ type: 'file', mimeType, data: media.url }]
  }
  return []
}

/** Genkit messages (`{role: user|model|system|tool, content: Part[]}`) as neutral messages. */
export function genkitMessages(value: unknown): ChatMessage[] | undefined {
  if (!Array.isArray(value)) return undefined
  const messages: ChatMessage[] = []
  for (const item of value) {
    if (!isRecord(item) || typeof item.role !== 'string' || !Array.isArray(item.content)) continue
    const role = ROLES.get(item.role)
    if (role) messages.push({ role, parts: item.content.flatMap(neutralParts) })
  }
  return value.length > 0 && messages.length === 0 ? undefined : messages
}

/** A model or generate response: `{message}` (or the older `{candidates: [{message}]}`). */
function responseMessages(value: unknown): ChatMessage[] | undefined {
  if (!isRecord(value)) return undefined
  if (isRecord(value.message)) return genkitMessages([value.message])
  if (Array.isArray(value.candidates)) {
    return genkitMessages(
      value.candidates.flatMap((c) => (isRecord(c) && isRecord(c.message) ? [c.message] : [])),
    )
  }
  return undefined
}

/** A flow's or a generate call's input as messages: generate options, a message list, or a prompt. */
function inputMessages(value: unknown): ChatMessage[] | undefined {
  if (isRecord(value) && (Array.isArray(value.messages) || value.prompt !== undefined)) {
    const messages: ChatMessage[] = []
    if (typeof value.system === 'string')
      messages.push({ role: 'system', parts: [{ type: 'text', text: value.system }] })
    messages.push(...(genkitMessages(value.messages) ?? []))
    const prompt = value.prompt
    if (typeof prompt === 'string') messages.push({ role: 'user', parts: [{ type: 'text', text: prompt }] })
    else if (Array.isArray(prompt)) messages.push({ role: 'user', parts: prompt.flatMap(neutralParts) })
    return messages
  }
  return genkitMessages(value) ?? parsePromptInput(value)
}

/**
 * Genkit's own spans (`genkit-tracer`): every action and util step is a span with `genkit:type`
 * (`action`, `util`, …), `genkit:metadata:subtype` (`flow`, `model`, `tool`, …), `genkit:name`,
 * `genkit:path` and JSON `genkit:input` / `genkit:output`. Genkit has no agent span: a flow that
 * calls a model is the run (a flow run by a tool is a nested run), or a `generate` called outside
 * any action. Each `generate` util span is one model turn and holds the next turn's `generate`;
 * model spans record the full request (`{messages, tools}`) and the response (`{message}`) with
 * Genkit parts (`text`, `toolRequest` with `ref` the call id, `toolResponse`). Tool spans record
 * the input and the returned value, without the call id. Custom metadata is `genkit:metadata:*`.
 */
export const genkitReader: ConventionReader = {
  convention: 'genkit',
  matches: (span) => typeof span.attributes['genkit:type'] === 'string',
  role(span): SpanRole {
    const { subtype } = genkitKind(span)
    if (subtype === 'flow') return 'agent'
    if (subtype === 'model') return 'model'
    if (subtype === 'tool') return 'tool'
    return isRootGenerate(span) ? 'agent' : 'other'
  },
  // A flow that only calls other flows or tools is no run of its own; a root generate always is.
  confirmRun: (span, tree) => isRootGenerate(span) || callsModel(span, tree),
  identity(span) {
    const name = readString(span.attributes, 'genkit:name') ?? span.name
    return isRootGenerate(span) ? {} : { agentName: name }
  },
  instructions: () => undefined,
  agentInput: (span, notes) => inputMessages(ioValue(span, 'input', notes)),
  agentOutput(span, notes) {
    const value = ioValue(span, 'output', notes)
    if (value === undefined) return undefined
    if (typeof value === 'string') return [{ role: 'assistant', parts: [{ type: 'text', text: value }] }]
    return responseMessages(value)
  },
  modelInput(span, notes) {
    const value = ioValue(span, 'input', notes)
    return isRecord(value) ? genkitMessages(value.messages) : undefined
  },
  modelOutput: (span, notes) => responseMessages(ioValue(span, 'output', notes)),
  toolCall(span, notes) {
    return {
      toolName: readString(span.attributes, 'genkit:name') ?? span.name,
      args: ioValue(span, 'input', notes),
      result: ioValue(span, 'output', notes),
      hasResult: hasAttribute(span.attributes, 'genkit:output'),
    }
  },
  metadata(span) {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(plainAttributes(span.attributes))) {
      if (!key.startsWith(METADATA) || key === SUBTYPE) continue
      setOwn(out, key.slice(METADATA.length), parseIfStructured(span.attributes[key]))
    }
    return out
  },
}
