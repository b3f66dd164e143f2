import type { Span } from '../../model/index.ts'
import type { ChatMessage } from '../chat-message.ts'
import { parseMessages, parsePromptInput } from '../parse-messages.ts'
import { isRecord, parseJsonValue, readString } from '../read-attribute.ts'
import { exceptionMessage } from '../span-error.ts'
import { type SpanTree, walkBelow } from '../span-tree.ts'
import { type ConventionReader, changedCall, type SpanRole } from './convention-reader.ts'
import {
  flattenedDicts,
  ioValue,
  kind,
  openInferenceReader,
  promptMessages,
  roleOfKind,
} from './openinference.ts'

/** The instrumentation scope of `openinference-instrumentation-langchain` (LangChain and LangGraph). */
const SCOPE = 'openinference.instrumentation.langchain'
/** The scope of `@arizeai/openinference-instrumentation-langchain` (LangChain.js and LangGraph.js). */
const JS_SCOPE = '@arizeai/openinference-instrumentation-langchain'
const isLangChain = (span: Span) => span.scope.name === SCOPE || span.scope.name === JS_SCOPE

/** LangChain message types → chat roles. */
const ROLES = new Map<string, ChatMessage['role']>([
  ['human', 'user'],
  ['HumanMessage', 'user'],
  ['ai', 'assistant'],
  ['AIMessage', 'assistant'],
  ['AIMessageChunk', 'assistant'],
  ['system', 'system'],
  ['SystemMessage', 'system'],
  ['tool', 'tool'],
  ['ToolMessage', 'tool'],
])

const isChain = (span: Span) => {
  const value = kind(span)
  return value === 'CHAIN' || value === 'AGENT'
}

/**
 * LangChain / LangGraph traced by OpenInference. Every runnable is a CHAIN span (AGENT when its
 * name contains "agent", so LangGraph's `agent` node is one per model step): the run is the
 * outermost chain of one invocation, whose parent is no chain (a root, a tool that invoked a
 * sub-graph, an application span), and that calls a model. Its input is the graph input
 * (`{"messages": [...]}`, history first), its output the final state; messages may be LangChain
 * envelopes (`{type, data}`, `{lc, kwargs}`). A tool span records a one-argument tool's bare
 * value and returns the `ToolMessage` envelope, which holds the call id and the result as text.
 */
export const langChainReader: ConventionReader = {
  ...openInferenceReader,
  matches: (span) => isLangChain(span) && openInferenceReader.matches(span),
  // Every chain is a candidate; `confirmRun` keeps the outermost one of an invocation.
  role: (span): SpanRole => roleOfKind(span, 'agent'),
  confirmRun: (span, tree) => {
    const parent = span.parentSpanId ? tree.byId.get(span.parentSpanId) : undefined
    if (parent && isLangChain(parent) && isChain(parent)) return false
    return callsModel(span, tree)
  },
  identity: (span) => ({ agentName: span.name, conversationId: readString(span.attributes, 'session.id') }),
  agentInput(span, notes) {
    const value = ioValue(span, 'input', notes)
    if (typeof value === 'string') return parsePromptInput(value)
    return (
      langChainMessages(isRecord(value) ? value.messages : value) ??
      openInferenceReader.agentInput(span, notes)
    )
  },
  agentOutput(span, notes) {
    const value = ioValue(span, 'output', notes)
    if (value === undefined) return undefined
    if (typeof value === 'string') return [{ role: 'assistant', parts: [{ type: 'text', text: value }] }]
    return (
      langChainMessages(isRecord(value) ? value.messages : value) ??
      openInferenceReader.agentOutput(span, notes)
    )
  },
  modelInput(span, notes) {
    // LangChain.js flattens tool calls and results without their ids, and a message whose content
    // is a list of blocks (a system prompt) as its role alone; `input.value` holds them whole.
    const dicts = flattenedDicts(span.attributes, 'llm.input_messages')
    const flattened = promptMessages(span, notes, dicts)
    if (!flattenedIncomplete(dicts)) return flattened
    const value = ioValue(span, 'input', notes)
    return (isRecord(value) ? langChainMessages(value.messages) : undefined) ?? flattened
  },
  modelOutput(span, notes) {
    // LangChain.js flattens tool calls without their ids; the generations in `output.value` hold them.
    const flattened = openInferenceReader.modelOutput(span, notes)
    if (!flattened?.some((m) => m.parts.some((p) => p.type === 'tool-call' && !p.toolCallId)))
      return flattened
    const value = ioValue(span, 'output', notes)
    const generations = isRecord(value) && Array.isArray(value.generations) ? value.generations.flat() : []
    const messages = generations.flatMap((g: unknown) =>
      isRecord(g) && g.message !== undefined ? [g.message] : [],
    )
    return (messages.length > 0 ? langChainMessages(messages) : undefined) ?? flattened
  },
  toolCall(span, notes) {
    const call = openInferenceReader.toolCall(span, notes)
    const envelope = toolMessage(call.result)
    if (!envelope) return call
    return changedCall(call, { toolCallId: call.toolCallId ?? envelope.toolCallId, result: envelope.result })
  },
  // The status holds the exception's repr and traceback; its event holds the message. LangChain.js
  // writes the message, a blank line and the stack, in both.
  toolError: (span) =>
    span.scope.name === JS_SCOPE
      ? (exceptionMessage(span) ?? span.status.message)?.split('\n\n')[0]
      : exceptionMessage(span),
}

/** Whether a model span's flattened prompt lost something: a message's text, or a tool call's id. */
function flattenedIncomplete(dicts: readonly Record<string, unknown>[] | undefined): boolean {
  return (dicts ?? []).some((message) => {
    if (message.role === 'tool' && message.tool_call_id === undefined) return true
    const calls = Array.isArray(message.tool_calls) ? message.tool_calls : []
    if (calls.some((call) => isRecord(call) && call.id === undefined)) return true
    return message.content === undefined && calls.length === 0
  })
}

/** Whether a model call is made under `span` without passing through a tool (a sub-graph's own run). */
function callsModel(span: Span, tree: SpanTree): boolean {
  return walkBelow(tree, span, (next) => {
    const value = kind(next)
    return value === 'LLM' ? 'stop' : value === 'TOOL' ? 'skip' : undefined
  })
}

/**
 * Messages in any form LangChain serializes them: plain `{role, content}` dicts (what a program
 * passes), `message_to_dict` envelopes `{type, data}`, and `{lc, type: 'constructor', id, kwargs}`.
 */
function langChainMessages(value: unknown): ChatMessage[] | undefined {
  if (!Array.isArray(value)) return undefined
  const list = value.length === 1 && Array.isArray(value[0]) ? value[0] : value
  return parseMessages(list.map((item: unknown) => plainMessage(item) ?? item))
}

/** A LangChain envelope as a plain chat message dict (tool calls in the OpenAI shape), or undefined. */
function plainMessage(item: unknown): Record<string, unknown> | undefined {
  if (!isRecord(item)) return undefined
  const className = Array.isArray(item.id) ? item.id[item.id.length - 1] : undefined
  const type = typeof className === 'string' && isRecord(item.kwargs) ? className : item.type
  const data = isRecord(item.data) ? item.data : isRecord(item.kwargs) ? item.kwargs : undefined
  const role = typeof type === 'string' ? ROLES.get(type) : undefined
  if (!role || !data) return undefined
  const message: Record<string, unknown> = { role, content: data.content }
  if (Array.isArray(data.tool_calls) && data.tool_calls.length > 0) {
    message.tool_calls = data.tool_calls.flatMap((call: unknown) =>
      isRecord(call) ? [{ id: call.id, function: { name: call.name, arguments: call.args } }] : [],
    )
  }
  if (typeof data.tool_call_id === 'string') message.tool_call_id = data.tool_call_id
  if (typeof data.name === 'string') message.name = data.name
  return message
}

/**
 * A serialized `ToolMessage`: its call id and result. Python writes `{type: 'tool', data:
 * {content, tool_call_id}}`; JavaScript `{output: {lc, id: [..., 'ToolMessage'], kwargs}}`.
 */
function toolMessage(value: unknown): { toolCallId?: string; result: unknown } | undefined {
  const envelope =
    isRecord(value) && value.type === undefined && isRecord(value.output) ? value.output : value
  const message = plainMessage(envelope)
  if (message?.role !== 'tool') return undefined
  const content = message.content
  return {
    ...(typeof message.tool_call_id === 'string' ? { toolCallId: message.tool_call_id } : {}),
    result: typeof content === 'string' ? parseJsonValue(content) : content,
  }
}
