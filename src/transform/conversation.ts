import { type ChatMessage, messageText } from './chat-message.ts'
import type { Notes } from './notes.ts'
import { isRuntimeRepr } from './runtime-repr.ts'

/** A run's conversation split the way Mastra's `MessageList` keeps it. */
interface Conversation {
  /** System texts: the agent instructions, else the system messages sent to the model. */
  system: string[]
  /** The new user message(s) of this turn. */
  input: ChatMessage[]
  /** Earlier conversation, oldest first. */
  remembered: ChatMessage[]
  /** The messages are the agent span's own (no framework template can wrap them). */
  fromAgent: boolean
}

/**
 * Splits a run's conversation. The caller's input to the agent and the first model prompt are
 * both candidates; the longer one is used, because memory (Mastra) adds history that only the
 * model prompt shows. The last block of user messages is this turn's input; what precedes it
 * is remembered history; what follows it (this turn's own steps) is dropped.
 */
export function splitConversation(
  {
    instructions,
    agentInput,
    firstPrompt,
  }: {
    instructions: string[] | undefined
    agentInput: ChatMessage[] | undefined
    firstPrompt: ChatMessage[] | undefined
  },
  notes: Notes,
): Conversation {
  const fromAgent = withoutRepr(agentInput, notes)?.filter((message) => message.role !== 'system')
  const fromPrompt = firstPrompt?.filter((message) => message.role !== 'system')
  const ownInput =
    fromAgent !== undefined && fromAgent.length > 0 && (!fromPrompt || fromAgent.length >= fromPrompt.length)
  const messages = ownInput ? fromAgent : (fromPrompt ?? fromAgent ?? [])
  if (!fromAgent && !firstPrompt) notes.missing('input', 'input messages not recorded (content capture off?)')
  if (!instructions && !firstPrompt)
    notes.missing('system', 'system instructions not recorded (no model call prompt)')

  const system =
    instructions && instructions.length > 0 ? instructions : systemTexts([agentInput, firstPrompt])

  let last = messages.length - 1
  while (last >= 0 && messages[last]!.role !== 'user') last--
  if (last < 0) {
    if (messages.length > 0) notes.add('no user message in the recorded input')
    return { system, input: [], remembered: messages, fromAgent: ownInput }
  }
  let first = last
  while (first > 0 && messages[first - 1]!.role === 'user') first--
  return {
    system,
    input: messages.slice(first, last + 1),
    remembered: messages.slice(0, first),
    fromAgent: ownInput,
  }
}

/**
 * The agent's recorded input, or undefined when what it recorded is a runtime's object repr (an
 * instrumentation that `str()`s the framework's input object): that is no message anyone wrote.
 */
function withoutRepr(agentInput: ChatMessage[] | undefined, notes: Notes): ChatMessage[] | undefined {
  if (!agentInput) return undefined
  // Message by message: the first text someone wrote settles it (the input may be a long history).
  let reprs = 0
  for (const message of agentInput) {
    if (message.role === 'system') continue
    if (!isRuntimeRepr(messageText(message))) return agentInput
    reprs++
  }
  if (reprs === 0) return agentInput
  notes.add("the agent span's input is an object repr, not a message: read from the model prompt")
  return undefined
}

/** The distinct non-empty texts of the system messages, first occurrence first (one pass, a Set). */
function systemTexts(lists: readonly (ChatMessage[] | undefined)[]): string[] {
  const texts = new Set<string>()
  for (const list of lists) {
    for (const message of list ?? []) {
      if (message.role !== 'system') continue
      const text = messageText(message)
      if (text.length > 0) texts.add(text)
    }
  }
  return [...texts]
}
