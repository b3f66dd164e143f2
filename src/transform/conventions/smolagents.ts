import type { ChatMessage } from '../chat-message.ts'
import { parseMessages } from '../parse-messages.ts'
import { parsePythonLiteral } from '../python-literal.ts'
import { isRecord, parseJsonValue, readString } from '../read-attribute.ts'
import { exceptionMessage } from '../span-error.ts'
import { type ConventionReader, changedCall, type SpanRole } from './convention-reader.ts'
import { flattenedDicts, ioValue, openInferenceReader, roleOfKind } from './openinference.ts'

/** The instrumentation scope of `openinference-instrumentation-smolagents`. */
const SCOPE = 'openinference.instrumentation.smolagents'

/** The tool a smolagents agent answers with: its arguments are the answer, not a tool call. */
const FINAL_ANSWER = 'final_answer'

/**
 * smolagents traced by OpenInference. `<name>.run` AGENT spans, one `Step N` CHAIN per model
 * turn. The agent answers by calling its `final_answer` tool, which is the final text, not a
 * tool call. Its model messages wrap the task (`New task:\n…`, a managed agent's longer brief),
 * carry the framework's prompt template around the program's instructions, and replay tool calls
 * and observations as Python reprs in `tool-call` / `tool-response` messages. Tool spans record
 * the call envelope `{args, sanitize_inputs_outputs, kwargs}`.
 */
export const smolagentsReader: ConventionReader = {
  ...openInferenceReader,
  matches: (span) => span.scope.name === SCOPE && openInferenceReader.matches(span),
  role: (span): SpanRole =>
    roleOfKind(
      span,
      (chain) => (/^Step \d+$/.test(chain.name) ? 'step' : 'other'),
      (tool) => readString(tool.attributes, 'tool.name') !== FINAL_ANSWER,
    ),
  confirmRun: undefined,
  identity: (span) => ({
    agentName: readString(span.attributes, 'agent.name') ?? span.name.replace(/\.run$/, ''),
    conversationId: readString(span.attributes, 'session.id'),
  }),
  agentOutput(span, notes) {
    // A streamed run's output is the repr of its stream; the answer is then the last model call's.
    const input = ioValue(span, 'input', notes)
    return isRecord(input) && input.stream === true ? undefined : openInferenceReader.agentOutput(span, notes)
  },
  agentInput(span, notes) {
    const value = ioValue(span, 'input', notes)
    const task = isRecord(value) ? value.task : readString(span.attributes, 'smolagents.task')
    return typeof task === 'string'
      ? [{ role: 'user', parts: [{ type: 'text', text: unwrapTask(task) }] }]
      : undefined
  },
  modelInput(span) {
    const dicts = flattenedDicts(span.attributes, 'llm.input_messages')
    return dicts ? plainConversation(dicts) : undefined
  },
  modelOutput(span, notes) {
    const dicts = flattenedDicts(span.attributes, 'llm.output_messages')
    if (!dicts) return openInferenceReader.modelOutput(span, notes)
    return parseMessages(dicts.map(answerAsText))
  },
  toolCall(span, notes) {
    const call = openInferenceReader.toolCall(span, notes)
    const envelope = call.args
    if (!isRecord(envelope) || !isRecord(envelope.kwargs) || !Array.isArray(envelope.args)) return call
    const positional = envelope.args
    return changedCall(call, {
      args: positional.length === 0 ? envelope.kwargs : { args: positional, ...envelope.kwargs },
    })
  },
  toolError: exceptionMessage,
}

/** The task a program passed, from smolagents' wrappings of it. */
function unwrapTask(text: string): string {
  const task = text.replace(/^New task:\n/, '')
  const managed =
    /^You're a helpful agent named '[^']*'\.\nYou have been submitted this task by your manager\.\n---\nTask:\n([\s\S]*?)\n---\n/.exec(
      task,
    )
  return managed ? managed[1]! : task
}

/** The program's instructions inside smolagents' system prompt template, else the whole prompt. */
function instructionsIn(system: string): string {
  const end = system.lastIndexOf('\n\nHere are the rules you should always follow')
  if (end < 0) return system
  const before = system.slice(0, end)
  // The instructions follow the last tool's or team member's "Returns an output of type:" line.
  let after = -1
  for (const match of before.matchAll(/\n[ \t]*-?[ \t]*Returns an output of type:[^\n]*/g)) {
    after = match.index + match[0].length
  }
  const instructions = after < 0 ? '' : before.slice(after).trim()
  return instructions.length > 0 ? instructions : system
}

function textOf(dict: Record<string, unknown>): string {
  const content = dict.content
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .flatMap((part) => (isRecord(part) && typeof part.text === 'string' ? [part.text] : []))
    .join('\n')
}

/** A Python repr or JSON text as a value, else the text itself. */
function literalValue(text: string): unknown {
  const literal = parsePythonLiteral(text)
  return literal !== undefined ? literal : parseJsonValue(text)
}

/** A model output whose `final_answer` call becomes the answer's text. */
function answerAsText(dict: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(dict.tool_calls)) return dict
  const answers: string[] = []
  const calls = dict.tool_calls.filter((call: unknown) => {
    const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined
    if (fn?.name !== FINAL_ANSWER) return true
    const args = typeof fn.arguments === 'string' ? parseJsonValue(fn.arguments) : fn.arguments
    const answer = isRecord(args) ? args.answer : args
    answers.push(typeof answer === 'string' ? answer : JSON.stringify(answer))
    return false
  })
  if (answers.length === 0) return dict
  const text = [textOf(dict), ...answers].filter((part) => part.length > 0).join('\n')
  return { ...dict, content: text, tool_calls: calls }
}

/**
 * smolagents' replayed memory as a plain conversation: the task unwrapped from user messages,
 * `tool-call` messages as assistant tool calls (a `final_answer` call as the answer's text),
 * `tool-response` observations as the results of the calls just made (none for an answer),
 * the instructions out of the system prompt template.
 */
function plainConversation(dicts: Record<string, unknown>[]): ChatMessage[] {
  const out: ChatMessage[] = []
  const push = (dict: Record<string, unknown>) => {
    for (const message of parseMessages([dict]) ?? []) out.push(message)
  }
  let lastCalls: string[] = []
  for (const dict of dicts) {
    const text = textOf(dict)
    if (dict.role === 'system') push({ role: 'system', content: instructionsIn(text) })
    else if (dict.role === 'user') push({ role: 'user', content: unwrapTask(text) })
    else if (dict.role === 'tool-call') {
      const calls = replayedCalls(text)
      const answer = calls.some((call) => call.function.name === FINAL_ANSWER)
      lastCalls = answer ? [] : calls.map((call) => call.id)
      push(answerAsText({ role: 'assistant', tool_calls: calls }))
    } else if (dict.role === 'tool-response') {
      if (lastCalls.length !== 1) continue
      const result = literalValue(text.replace(/^Observation:\n/, ''))
      out.push({ role: 'tool', parts: [{ type: 'tool-result', toolCallId: lastCalls[0]!, result }] })
      lastCalls = []
    } else push(dict)
  }
  return out
}

/** The calls of a `tool-call` message, `Calling tools:\n[{'id', 'type', 'function': {...}}]` (a repr). */
function replayedCalls(text: string): { id: string; function: { name: string; arguments: unknown } }[] {
  const list = parsePythonLiteral(text.replace(/^Calling tools:\n/, ''))
  if (!Array.isArray(list)) return []
  return list.flatMap((call) =>
    isRecord(call) && isRecord(call.function) && typeof call.function.name === 'string'
      ? [
          {
            id: String(call.id ?? ''),
            function: { name: call.function.name, arguments: call.function.arguments },
          },
        ]
      : [],
  )
}
