import type { Span } from '../model/index.ts'
import type { CallingToolCall } from './calling-tool-call.ts'
import { type ChatMessage, messageText } from './chat-message.ts'
import type { ConventionReader } from './conventions/convention-reader.ts'
import type { ModelOutputs } from './model-outputs.ts'
import type { Notes } from './notes.ts'
import { isRuntimeRepr } from './runtime-repr.ts'
import { spanError } from './span-error.ts'
import { compareNanos } from './span-tree.ts'
import type { ToolCallRecord } from './tool-calls.ts'

/**
 * Whether the run failed: its agent span has status ERROR, unless that error is only a tool
 * failure the agent loop went on from (a model call started after it). Some span processors
 * (OpenInference's for the AI SDK) copy the first error of a trace onto its root span.
 */
export function runFailed(
  agent: Span,
  toolCalls: readonly ToolCallRecord[],
  models: readonly Span[],
  notes: Notes,
  reader?: ConventionReader,
): boolean {
  const error = spanError(agent) ?? reader?.failure?.(agent)
  if (error === undefined) return false
  // A model call started after the failed call means the loop went on; the latest start decides.
  let lastModelStart: string | undefined
  for (const model of models) {
    if (lastModelStart === undefined || compareNanos(model.startTimeUnixNano, lastModelStart) > 0) {
      lastModelStart = model.startTimeUnixNano
    }
  }
  const recovered = toolCalls.find(
    (call) =>
      call.state === 'output-error' &&
      call.errorText === error &&
      lastModelStart !== undefined &&
      compareNanos(lastModelStart, call.timeUnixNano) > 0,
  )
  if (recovered) {
    notes.add(
      `agent span status ERROR (${error}) comes from tool call ${recovered.toolCallId}, which the run went on from`,
    )
    return false
  }
  notes.add(`agent run failed: ${error}`)
  return true
}

/** The last assistant text of a list of messages, if any message has text. */
function lastText(messages: readonly ChatMessage[] | undefined): string | undefined {
  if (!messages) return undefined
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!
    if (message.role !== 'assistant') continue
    const text = messageText(message)
    if (text.length > 0) return text
  }
  return undefined
}

/**
 * The final answer: the agent span's recorded output, else the text of the last model call.
 * A failed run with no recorded output has no final text. A recorded output that is only the
 * texts of every step glued together (Mastra's run text) is the last step's text: the earlier
 * texts were written alongside tool calls and stay in their own steps. An output with no answer in
 * it, or whose answer only repeats what the agent was asked or configured with (a text of its
 * first prompt's system or user messages, or its instructions), gives way to the last model call's
 * answer, with a note.
 */
export function pickFinalText(
  reader: ConventionReader,
  agent: Span,
  {
    models,
    stepTexts,
    failed,
    outputs,
    called,
    prompt,
    instructions,
  }: {
    models: readonly Span[]
    stepTexts: readonly string[]
    failed: boolean
    outputs: ModelOutputs
    /** The tool call that ran this agent, if one did: its result is the answer it gave back. */
    called?: CallingToolCall
    /** The run's first model prompt and its recorded instructions, which no answer repeats. */
    prompt?: readonly ChatMessage[]
    instructions?: readonly string[]
  },
  notes: Notes,
): string {
  const output = reader.agentOutput(agent, notes)
  const recorded = output ? lastText(output) : undefined
  const modelText = () => lastModelText(models, outputs, notes)
  if (recorded !== undefined && isRuntimeRepr(recorded)) {
    notes.add("the agent span's output is an object repr, not text: the final text is the model's")
  } else if (recorded !== undefined && repeatsPrompt(recorded, prompt, instructions)) {
    const answer = modelText()
    if (answer === undefined || answer === '' || answer === recorded) return recorded
    notes.add("final text: the last model answer (the agent span's output only repeats what it was asked)")
    return answer
  } else if (recorded !== undefined) {
    const written = stepTexts.filter((step) => step.length > 0)
    const lastWritten = written[written.length - 1]
    if (written.length > 1 && recorded === written.join('')) return lastWritten!
    // The agent's output rendered around the model's answer (`str(AgentResult)` adds a newline):
    // the same text, so the model's own is kept.
    if (lastWritten !== undefined && recorded !== lastWritten && recorded.trim() === lastWritten.trim())
      return lastWritten
    return recorded
  }
  if (failed) return ''
  const text = modelText()
  if (output && recorded === undefined && text)
    notes.add("final text: the last model answer (the agent span's output holds no answer)")
  if (text !== undefined && !isRuntimeRepr(text)) return text
  const given = called?.finalText(notes)
  if (given !== undefined) return given
  notes.missing('finalText', 'final text not recorded (content capture off?)')
  return ''
}

/**
 * The last model call's answer text: undefined when no answer was recorded, '' when it holds no
 * text (a call that only asked for tools).
 */
function lastModelText(models: readonly Span[], outputs: ModelOutputs, notes: Notes): string | undefined {
  const last = [...models].sort((a, b) => compareNanos(a.endTimeUnixNano, b.endTimeUnixNano)).pop()
  const fromModel = last ? outputs.peek(last, notes) : undefined
  if (!fromModel) return undefined
  return lastText(fromModel) ?? ''
}

/** Whether a text is one of the prompt's system or user texts, or the instructions. */
function repeatsPrompt(
  text: string,
  prompt: readonly ChatMessage[] | undefined,
  instructions: readonly string[] | undefined,
) {
  const own = text.trim()
  if (own === '') return false
  if (instructions?.some((instruction) => instruction.trim() === own)) return true
  return (
    prompt?.some(
      (message) =>
        (message.role === 'system' || message.role === 'user') && messageText(message).trim() === own,
    ) ?? false
  )
}
