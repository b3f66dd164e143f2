import type {
  MastraDBMessage,
  MastraMessageContentV2,
  MastraMessagePart,
  ToolInvocation,
  ToolInvocationPart,
} from '../model/index.ts'
import type { ChatMessage } from './chat-message.ts'
import type { ToolCallRecord } from './tool-calls.ts'

/** Where built messages live: their thread and resource, and how ids and times are made. */
export interface MessageContext {
  threadId?: string
  resourceId?: string
}

/**
 * A tool call as Mastra's `toolInvocation` (result or error by state). Whole literals, no
 * `{ ...base, state }` (slow: README, "Cost and hostile input"): one per tool call.
 */
function toToolInvocation(call: ToolCallRecord): ToolInvocation {
  const { toolCallId, toolName, args } = call
  if (call.state === 'output-error')
    return { toolCallId, toolName, args, state: 'output-error', errorText: call.errorText ?? 'error' }
  if (call.state === 'result') return { toolCallId, toolName, args, state: 'result', result: call.result }
  return { toolCallId, toolName, args, state: 'call' }
}

function toolPart(toolInvocation: ToolInvocation): ToolInvocationPart {
  return { type: 'tool-invocation', toolInvocation }
}

/** One stored message with the `content` mirrors Mastra keeps (`content` text, `toolInvocations`). */
function stored(
  role: MastraDBMessage['role'],
  parts: MastraMessagePart[],
  { id, createdAt, context }: { id: string; createdAt: Date; context: MessageContext },
): MastraDBMessage {
  // One pass, no per-part arrays: this runs for every message of every run.
  const texts: string[] = []
  const invocations: ToolInvocation[] = []
  for (const part of parts) {
    if (part.type === 'text') texts.push(part.text)
    // Like Mastra's legacy (AI SDK v4) mirror, which has no state for a failed call.
    else if (part.type === 'tool-invocation' && part.toolInvocation.state !== 'output-error') {
      invocations.push(part.toolInvocation)
    }
  }
  const content: MastraMessageContentV2 = { format: 2, parts }
  if (texts.length > 0) content.content = role === 'assistant' ? texts[texts.length - 1]! : texts.join('\n')
  if (invocations.length > 0) content.toolInvocations = invocations
  // Keys in this order: id, role, createdAt, threadId, resourceId, content.
  const message = { id, role, createdAt } as MastraDBMessage
  if (context.threadId) message.threadId = context.threadId
  if (context.resourceId) message.resourceId = context.resourceId
  message.content = content
  return message
}

/**
 * Turns neutral chat messages into Mastra stored messages: tool results (`tool` messages) are
 * folded into the assistant message that made the call, as `tool-invocation` parts with their
 * result, the way Mastra's `MessageList` stores them.
 */
export function toMastraMessages(
  messages: readonly ChatMessage[],
  {
    idPrefix,
    createdAt,
    context,
  }: { idPrefix: string; createdAt: (index: number) => Date; context: MessageContext },
): MastraDBMessage[] {
  const out: { role: MastraDBMessage['role']; parts: MastraMessagePart[] }[] = []
  const pending = new Map<string, ToolInvocationPart>()
  for (const message of messages) {
    if (message.role === 'tool') {
      for (const part of message.parts) {
        if (part.type !== 'tool-result') continue
        const target = part.toolCallId ? pending.get(part.toolCallId) : undefined
        const settled: ToolInvocation = {
          toolCallId: part.toolCallId ?? '',
          toolName: part.toolName ?? target?.toolInvocation.toolName ?? 'unknown',
          args: target?.toolInvocation.args ?? {},
          ...(part.isError
            ? {
                state: 'output-error',
                errorText: typeof part.result === 'string' ? part.result : JSON.stringify(part.result),
              }
            : { state: 'result', result: part.result }),
        }
        if (target) target.toolInvocation = settled
        else {
          const previous = out.findLast((entry) => entry.role === 'assistant')
          if (previous) previous.parts.push(toolPart(settled))
          else out.push({ role: 'assistant', parts: [toolPart(settled)] })
        }
      }
      continue
    }
    const parts: MastraMessagePart[] = []
    for (const part of message.parts) {
      if (part.type === 'text') parts.push({ type: 'text', text: part.text })
      else if (part.type === 'reasoning') {
        parts.push({ type: 'reasoning', reasoning: part.text, details: [{ type: 'text', text: part.text }] })
      } else if (part.type === 'file') parts.push({ type: 'file', mimeType: part.mimeType, data: part.data })
      else if (part.type === 'tool-call') {
        const toolCallId = part.toolCallId ?? ''
        const invocation = toolPart({
          toolCallId,
          toolName: part.toolName,
          args: part.args ?? {},
          state: 'call',
        })
        if (part.toolCallId) pending.set(part.toolCallId, invocation)
        parts.push(invocation)
      } else if (part.type === 'tool-result') {
        const target = part.toolCallId ? pending.get(part.toolCallId) : undefined
        if (target) {
          target.toolInvocation = part.isError
            ? { ...target.toolInvocation, state: 'output-error', errorText: String(part.result) }
            : { ...target.toolInvocation, state: 'result', result: part.result }
        }
      }
    }
    out.push({ role: message.role, parts })
  }
  return out.map((entry, index) =>
    stored(entry.role, entry.parts, { id: `${idPrefix}-${index}`, createdAt: createdAt(index), context }),
  )
}

/**
 * The response of a run as one assistant message, laid out as Mastra stores a turn: step by
 * step, the text the model wrote in that step then its tool calls (`tool-invocation` parts, in
 * call order), a `step-start` part where a new step of the agent loop begins, and the final
 * text last.
 */
export function buildOutputMessage({
  toolCalls,
  stepTexts = [],
  finalText,
  finalStep,
  id,
  createdAt,
  context,
}: {
  toolCalls: readonly ToolCallRecord[]
  /** The text of each step by index ('' when none); the final step's is `finalText`. */
  stepTexts?: readonly string[]
  finalText: string
  /** The step that produced the final text (the last one). */
  finalStep: number | undefined
  id: string
  createdAt: Date
  context: MessageContext
}): MastraDBMessage {
  const parts: MastraMessagePart[] = []
  let step: number | undefined
  const enter = (next: number | undefined) => {
    if (step !== undefined && next !== undefined && next !== step) parts.push({ type: 'step-start' })
    if (next !== undefined) step = next
  }
  // Texts of the steps before `last` (never the final step's: that is the final text).
  let nextText = 0
  const textsUpTo = (last: number) => {
    for (; nextText <= last && nextText !== finalStep; nextText++) {
      const text = stepTexts[nextText]
      if (!text) continue
      enter(nextText)
      parts.push({ type: 'text', text })
    }
  }
  for (const call of toolCalls) {
    if (call.step !== undefined) textsUpTo(call.step)
    enter(call.step)
    parts.push(toolPart(toToolInvocation(call)))
  }
  textsUpTo(stepTexts.length - 1)
  if (finalText.length > 0) {
    enter(finalStep)
    parts.push({ type: 'text', text: finalText })
  }
  const message = stored('assistant', parts, { id, createdAt, context })
  message.content.content = finalText
  return message
}
