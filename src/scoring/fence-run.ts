import { fenceText } from './fence-untrusted.ts'
import { mapStringsDeep } from './map-strings-deep.ts'

type Item = Record<string, unknown>

const isItem = (value: unknown): value is Item =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * A copy of an agent run (`run.input` / `run.output` in Mastra's agent shapes) whose free text is
 * fenced with the markers of `nonce`: message texts (`content.content`, text parts, reasoning),
 * system messages, and every string inside tool arguments, results and error texts. What code
 * reads to decide (roles, ids, part types, tool names, states, object keys, `requestContext`) is
 * left as it is, so a `createPrompt` that filters messages by role still finds them. Values that
 * do not have the agent shapes are left as they are.
 */
export function fenceRunContent<T extends { input?: unknown; output?: unknown }>(run: T, nonce: string): T {
  const fence = (text: string) => (text.length > 0 ? fenceText(text, nonce) : text)
  const fenceDeep = (value: unknown) => mapStringsDeep(value, { value: fence })

  const part = (value: unknown): unknown => {
    if (!isItem(value)) return value
    if (value.type === 'text' && typeof value.text === 'string') return { ...value, text: fence(value.text) }
    if (value.type === 'reasoning') {
      return {
        ...value,
        ...(typeof value.reasoning === 'string' ? { reasoning: fence(value.reasoning) } : {}),
        ...(Array.isArray(value.details) ? { details: value.details.map(part) } : {}),
      }
    }
    if (value.type === 'tool-invocation' && isItem(value.toolInvocation)) {
      return { ...value, toolInvocation: invocation(value.toolInvocation) }
    }
    return value
  }
  const invocation = (value: unknown): unknown => {
    if (!isItem(value)) return value
    const copy: Item = { ...value }
    for (const key of ['args', 'result', 'errorText', 'rawInput'] as const) {
      if (key in copy) copy[key] = fenceDeep(copy[key])
    }
    return copy
  }
  const content = (value: unknown): unknown => {
    if (typeof value === 'string') return fence(value)
    if (Array.isArray(value)) return value.map(part)
    if (!isItem(value)) return value
    const copy: Item = { ...value }
    if (typeof copy.content === 'string') copy.content = fence(copy.content)
    if (typeof copy.reasoning === 'string') copy.reasoning = fence(copy.reasoning)
    if (Array.isArray(copy.parts)) copy.parts = copy.parts.map(part)
    if (Array.isArray(copy.toolInvocations)) copy.toolInvocations = copy.toolInvocations.map(invocation)
    return copy
  }
  const message = (value: unknown): unknown =>
    isItem(value) ? { ...value, content: content(value.content) } : value
  const messages = (value: unknown): unknown => (Array.isArray(value) ? value.map(message) : value)

  const input = run.input
  let fencedInput = input
  if (isItem(input)) {
    const copy: Item = { ...input }
    for (const key of ['inputMessages', 'rememberedMessages', 'systemMessages'] as const) {
      if (key in copy) copy[key] = messages(copy[key])
    }
    const tagged = copy.taggedSystemMessages
    if (isItem(tagged)) {
      copy.taggedSystemMessages = Object.fromEntries(
        Object.entries(tagged).map(([tag, list]) => [tag, messages(list)]),
      )
    }
    fencedInput = copy
  }
  return { ...run, input: fencedInput, ...('output' in run ? { output: messages(run.output) } : {}) }
}
