import { type Span, StatusCode } from '../../model/index.ts'
import type { ChatMessage } from '../chat-message.ts'
import type { Notes } from '../notes.ts'
import { isRecord, parseJsonValue, readString } from '../read-attribute.ts'
import { byStart, type SpanTree } from '../span-tree.ts'
import type { ConventionReader, SpanRole } from './convention-reader.ts'
import { genAiReader } from './genai.ts'
import { ADK_SCOPE, googleAdkReader, programText } from './google-adk.ts'
import { ioValue, kind, openInferenceReader, roleOfKind } from './openinference.ts'

/** The instrumentation scope of `openinference-instrumentation-google-adk`. */
const SCOPE = 'openinference.instrumentation.google_adk'

/**
 * Google ADK traced by `openinference-instrumentation-google-adk` (1.0). It replaces ADK's
 * tracer: `invocation [<app>]` (CHAIN; `input.value` the runner's arguments with `new_message`,
 * the user's input) → `invoke_workflow` → `agent_run [<agent>]` (AGENT, the run; `output.value`
 * the final ADK event, whose `content.parts` hold the answer) → `execute_tool <tool>` (TOOL with
 * the GenAI tool keys too). It writes no model-call spans: the model-call attributes (both its own
 * and ADK's GenAI ones) land on ADK's one `invoke_agent` span, overwritten at every call, so the
 * last call's prompt — the whole turn — is the only prompt: it is cut after the user's input, and
 * the calls of the turn are rebuilt from it ({@link foldedModelCalls}).
 */
export const googleAdkOpenInferenceReader: ConventionReader = {
  ...openInferenceReader,
  matches: (span) =>
    span.scope.name === SCOPE && (openInferenceReader.matches(span) || genAiReader.matches(span)),
  role: (span): SpanRole => roleOfKind(span, 'other'),
  confirmRun: undefined,
  runContinuations: transferChain,
  agentInput(span, notes, tree) {
    const invocation = tree ? invocationOf(span, tree) : undefined
    const input = invocation ? ioValue(invocation, 'input', notes) : undefined
    const text = isRecord(input) ? partsText(input.new_message) : undefined
    return text === undefined ? undefined : [{ role: 'user', parts: [{ type: 'text', text }] }]
  },
  agentOutput(span, notes) {
    const event = ioValue(span, 'output', notes)
    const text = isRecord(event) ? partsText(event.content) : undefined
    return text === undefined ? undefined : [{ role: 'assistant', parts: [{ type: 'text', text }] }]
  },
  unfoldModelCalls: foldedModelCalls,
  unwrapPrompt: (messages) => upToInput(messages.map((m) => (m.role === 'system' ? programText(m) : m))),
  toolCall(span, notes) {
    const genAi = genAiReader.toolCall(span, notes)
    const oi = openInferenceReader.toolCall(span, notes)
    // OpenInference's output is `{"id", "name", "response": <the function response>}`.
    const response = isRecord(oi.result) && 'response' in oi.result ? oi.result.response : oi.result
    return {
      toolCallId: genAi.toolCallId ?? oi.toolCallId,
      toolName: genAi.toolName ?? oi.toolName,
      args: genAi.args ?? oi.args,
      result: genAi.hasResult ? genAi.result : response,
      hasResult: genAi.hasResult || oi.hasResult,
    }
  },
  toolError(span) {
    const fromResult = googleAdkReader.toolError?.(span)
    if (fromResult !== undefined) return fromResult
    const output = parseJsonValue(readString(span.attributes, 'output.value') ?? '')
    const response = isRecord(output) && isRecord(output.response) ? output.response : undefined
    return typeof response?.error === 'string' ? response.error : undefined
  },
}

/** A transfer's later agents: the run span's later AGENT siblings under the same `invoke_workflow`. */
function transferChain(run: Span, tree: SpanTree): Span[] {
  const parent = tree.parentOf(run)
  if (!parent?.name.startsWith('invoke_workflow')) return []
  return tree
    .children(parent.spanId)
    .filter((span) => span !== run && kind(span) === 'AGENT' && byStart(run, span) < 0)
}

/** The `invocation [...]` span above a run span: the runner call that holds the user's message. */
function invocationOf(span: Span, tree: SpanTree): Span | undefined {
  for (let parent = tree.parentOf(span); parent; parent = tree.parentOf(parent)) {
    if (parent.scope.name !== SCOPE) return undefined
    if (parent.name.startsWith('invocation')) return parent
  }
  return undefined
}

/** The text of ADK `Content` (`{"parts": [{"text"}, …], "role"}`), thoughts left out. */
function partsText(content: unknown): string | undefined {
  if (!isRecord(content) || !Array.isArray(content.parts)) return undefined
  const texts = content.parts.flatMap((part) =>
    isRecord(part) && typeof part.text === 'string' && part.thought !== true ? [part.text] : [],
  )
  return texts.length > 0 ? texts.join('') : undefined
}

/** The prompt up to the user's last text message (the turn's own steps follow it). */
function upToInput(messages: ChatMessage[]): ChatMessage[] {
  const input = inputIndex(messages)
  return input < 0 ? messages : messages.slice(0, input + 1)
}

/** Where the user's last text message is in a prompt (-1: nowhere). */
function inputIndex(messages: readonly ChatMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!
    if (message.role === 'user' && message.parts.some((part) => part.type === 'text')) return index
  }
  return -1
}

/**
 * The model calls folded into ADK's `invoke_agent` span, one stand-in span each. The last call's
 * prompt holds the turn so far: after the user's input (for a transfer's later agent, the retold
 * transfer), each assistant message is an earlier call's answer, and the span's output is the
 * last call's. Taken only when the prompt accounts for every tool span under the span (a prompt
 * not recorded or cut short would drop steps, and none is made up): else the span stays one
 * call, with a note. An earlier call's tool calls left in the output are dropped: OpenInference's
 * flattened keys that the last call did not overwrite are still on the span.
 */
function foldedModelCalls(span: Span, tree: SpanTree, notes: Notes): Span[] | undefined {
  if (span.scope.name !== ADK_SCOPE) return undefined
  const reader = googleAdkReader.matches(span) ? googleAdkReader : openInferenceReader
  const toolIds = tree.children(span.spanId).flatMap((child) => (isToolSpan(child) ? [callIdOf(child)] : []))
  const oneCall = (why: string) => {
    if (toolIds.length > 0) notes.add(`model calls folded into span ${span.spanId} kept as one step: ${why}`)
    return undefined
  }
  const prompt = reader.modelInput(span, notes)
  if (!prompt) return oneCall('its prompt is not recorded')
  const input = inputIndex(prompt)
  if (input < 0) return oneCall('its prompt holds no user input')
  const answers: number[] = []
  const made = new Set<string>()
  for (let index = input + 1; index < prompt.length; index++) {
    if (prompt[index]!.role !== 'assistant') continue
    answers.push(index)
    for (const id of callIds(prompt[index]!)) made.add(id)
  }
  const output = (reader.modelOutput(span, notes) ?? []).map((message) => ({
    ...message,
    parts: message.parts.filter((part) => part.type !== 'tool-call' || !made.has(part.toolCallId ?? '')),
  }))
  const last = new Set(output.flatMap(callIds))
  const missing = toolIds.filter((id) => id === undefined || (!made.has(id) && !last.has(id)))
  if (missing.length > 0) {
    const named = missing.map((id) => id ?? '(no id)').join(', ')
    return oneCall(`its prompt lacks tool call(s) ${named} (history cut short?)`)
  }
  if (answers.length === 0) return undefined
  // The calls in between record no prompt of their own: the last one's holds them all.
  return [
    ...answers.map((at, call) =>
      standIn(span, {
        call,
        ...(call === 0 ? { prompt: prompt.slice(0, at) } : {}),
        answer: [prompt[at]!],
        last: false,
      }),
    ),
    standIn(span, { call: answers.length, prompt, answer: output, last: true }),
  ]
}

function isToolSpan(span: Span): boolean {
  return kind(span) === 'TOOL' || readString(span.attributes, 'gen_ai.operation.name') === 'execute_tool'
}

function callIdOf(span: Span): string | undefined {
  return readString(span.attributes, 'gen_ai.tool.call.id') ?? readString(span.attributes, 'tool.id')
}

function callIds(message: ChatMessage): string[] {
  return message.parts.flatMap((part) =>
    part.type === 'tool-call' && part.toolCallId ? [part.toolCallId] : [],
  )
}

/**
 * Call `call` of the calls folded into `folded`, as an OpenInference model-call span of this
 * instrumentation (read by this reader): its prompt (when known) and answer as `input.value` and
 * `output.value`. Its times are the folded span's, its start moved on by `call` nanoseconds so
 * the calls keep their order; only the last call carries the folded span's status.
 */
function standIn(
  folded: Span,
  {
    call,
    prompt,
    answer,
    last,
  }: { call: number; prompt?: ChatMessage[]; answer: ChatMessage[]; last: boolean },
): Span {
  const start = folded.startTimeUnixNano
  return {
    ...folded,
    spanId: `${folded.spanId}-call-${call}`,
    startTimeUnixNano: /^\d+$/.test(start) ? String(BigInt(start) + BigInt(call)) : start,
    scope: { name: SCOPE },
    attributes: {
      'openinference.span.kind': 'LLM',
      ...(prompt
        ? { 'input.value': JSON.stringify({ messages: prompt }), 'input.mime_type': 'application/json' }
        : {}),
      'output.value': JSON.stringify({ choices: answer.map((message) => ({ message })) }),
      'output.mime_type': 'application/json',
    },
    events: [],
    links: [],
    status: last ? folded.status : { code: StatusCode.OK },
  }
}
