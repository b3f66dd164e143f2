import type { Span } from '../../model/index.ts'
import type { ChatMessage } from '../chat-message.ts'
import { isRecord, parseJsonValue, readString } from '../read-attribute.ts'
import { byStart, type SpanTree } from '../span-tree.ts'
import type { ConventionReader, SpanRole } from './convention-reader.ts'
import { genAiReader } from './genai.ts'
import { googleAdkReader, programText } from './google-adk.ts'
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
 * last call's prompt — the whole turn — is the only prompt: it is cut after the user's input.
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
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!
    if (message.role === 'user' && message.parts.some((part) => part.type === 'text'))
      return messages.slice(0, index + 1)
  }
  return messages
}
