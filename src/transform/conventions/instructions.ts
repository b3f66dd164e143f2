import { messageText } from '../chat-message.ts'
import { parseMessages } from '../parse-messages.ts'
import { isRecord } from '../read-attribute.ts'

/**
 * The texts of recorded system instructions: a plain string, GenAI parts
 * `[{type:'text', content}]`, or system messages `[{role:'system', content}]`.
 */
export function textsOfInstructions(value: unknown): string[] | undefined {
  if (typeof value === 'string') return value.length > 0 ? [value] : undefined
  if (isRecord(value) && typeof value.content === 'string') return [value.content]
  if (!Array.isArray(value)) return undefined
  const texts: string[] = []
  for (const item of value) {
    if (typeof item === 'string') texts.push(item)
    else if (isRecord(item) && typeof item.role === 'string') {
      const message = parseMessages([item])?.[0]
      if (message) texts.push(messageText(message))
    } else if (isRecord(item)) {
      const text = typeof item.content === 'string' ? item.content : item.text
      if (typeof text === 'string') texts.push(text)
    }
  }
  const nonEmpty = texts.filter((text) => text.length > 0)
  return nonEmpty.length > 0 ? nonEmpty : undefined
}
