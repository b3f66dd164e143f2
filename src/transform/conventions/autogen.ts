import type { Attributes, Span } from '../../model/index.ts'
import { type ChatPart, messageText } from '../chat-message.ts'
import { parsePythonLiteral } from '../python-literal.ts'
import { indexed, isRecord, parseJsonValue, readString } from '../read-attribute.ts'
import { exceptionMessage } from '../span-error.ts'
import { type ConventionReader, changedCall } from './convention-reader.ts'
import { genAiReader } from './genai.ts'
import { ioValue, kind, openInferenceReader } from './openinference.ts'

/** The scope of AutoGen's own spans (autogen-core's telemetry). */
const NATIVE_SCOPE = 'autogen-core'

/** The scope of `openinference-instrumentation-autogen-agentchat`. */
const OPENINFERENCE_SCOPE = 'openinference.instrumentation.autogen_agentchat'

/**
 * AutoGen's own GenAI spans (`invoke_agent <name>`, `execute_tool <tool>` with the call id): a
 * failed tool's status is `<ExceptionType>: <message>`; its own message is in the exception event.
 */
export const autogenReader: ConventionReader = {
  ...genAiReader,
  matches: (span) => span.scope.name === NATIVE_SCOPE && genAiReader.matches(span),
  toolError: exceptionMessage,
}

/**
 * AutoGen AgentChat traced by OpenInference: an AGENT span `<name>.on_messages_stream` per
 * invocation (the name in `graph.node.id`), whose `input.value` holds Python reprs of AgentChat
 * messages (never read: the model calls' prompts have the conversation); TOOL spans
 * `<agent>.<tool>` whose `output.value` is `str()` of the returned value (a Python literal).
 *
 * The instrumentation (0.1.22) sets an AGENT or TOOL span's status OK before it knows the
 * outcome, and OpenTelemetry keeps an OK status final, so its later ERROR is dropped: a failed
 * tool is only the `is_error` of its result in the next prompt (`function.N`), a failed run only
 * the `exception` event the AGENT span records (see {@link agentFailure}).
 */
export const autogenOpenInferenceReader: ConventionReader = {
  ...openInferenceReader,
  matches: (span) => span.scope.name === OPENINFERENCE_SCOPE && openInferenceReader.matches(span),
  identity(span) {
    const name =
      readString(span.attributes, 'agent.name') ??
      readString(span.attributes, 'graph.node.id') ??
      agentOfSpanName(span)
    return {
      ...(name ? { agentName: name } : {}),
      conversationId: readString(span.attributes, 'session.id'),
    }
  },
  agentInput: () => undefined,
  modelInput(span, notes) {
    const messages = openInferenceReader.modelInput(span, notes)
    if (!messages) return messages
    // Tool results are `function.N` JSON entries of a `function` message, which the flattened
    // layout does not know: `{"name", "content": "<str(result)>", "call_id", "is_error"}`.
    const groups = [...indexed(span.attributes, 'llm.input_messages').values()]
    return messages.map((message, index) => {
      const results = functionResults(groups[index])
      return results.length > 0 ? { role: 'tool', parts: results } : message
    })
  },
  modelOutput(span, notes) {
    const messages = openInferenceReader.modelOutput(span, notes)
    // Text written alongside tool calls is only the response's `thought` in `output.value`.
    const value = ioValue(span, 'output', notes)
    const thought = isRecord(value) && typeof value.thought === 'string' ? value.thought : undefined
    if (!thought || !messages) return messages
    return messages.map((message, index) =>
      index === 0 && messageText(message) === ''
        ? { ...message, parts: [{ type: 'text', text: thought }, ...message.parts] }
        : message,
    )
  },
  toolCall(span, notes) {
    const call = openInferenceReader.toolCall(span, notes)
    const literal = typeof call.result === 'string' ? parsePythonLiteral(call.result) : undefined
    return changedCall(
      call,
      literal === undefined ? { failureInPrompt: true } : { failureInPrompt: true, result: literal },
    )
  },
  failure: agentFailure,
}

/** asyncio's cancellation, with which AgentChat stops reading an agent's stream it is done with. */
const CANCELLED = /(?:^|\.)CancelledError$/

/**
 * The error of a failed AGENT span: the instrumentation records every exception that ends the
 * agent's stream (and leaves the status OK), the cancellation that ends a finished one included.
 */
function agentFailure(span: Span): string | undefined {
  if (kind(span) !== 'AGENT') return undefined
  for (const event of span.events) {
    if (event.name !== 'exception') continue
    const type = readString(event.attributes, 'exception.type') ?? ''
    if (CANCELLED.test(type)) continue
    return readString(event.attributes, 'exception.message') || type || 'error'
  }
  return undefined
}

/** The tool results of one flattened input message's `function.N` entries. */
function functionResults(group: Attributes | undefined): ChatPart[] {
  if (!group) return []
  const parts: ChatPart[] = []
  for (const [key, value] of Object.entries(group)) {
    if (!/^function\.\d+$/.test(key) || typeof value !== 'string') continue
    const entry = parseJsonValue(value)
    if (!isRecord(entry) || typeof entry.call_id !== 'string') continue
    const content = typeof entry.content === 'string' ? entry.content : ''
    parts.push({
      type: 'tool-result',
      toolCallId: entry.call_id,
      ...(typeof entry.name === 'string' ? { toolName: entry.name } : {}),
      result: parsePythonLiteral(content) ?? parseJsonValue(content),
      ...(entry.is_error === true ? { isError: true } : {}),
    })
  }
  return parts
}

/** `support_agent.on_messages_stream` → `support_agent`. */
function agentOfSpanName(span: Span): string | undefined {
  const end = span.name.lastIndexOf('.on_messages')
  return end > 0 ? span.name.slice(0, end) : undefined
}
