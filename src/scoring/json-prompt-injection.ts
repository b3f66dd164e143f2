import type { JSONSchema7 } from '@ai-sdk/provider'
import type { JsonPromptInjection } from './judge-config.ts'
import type { JudgeMessage } from './processor.ts'

/** Where the output schema goes on one judge request. */
export type SchemaPlacement = 'native' | 'system' | 'inline'

/** Resolves a `jsonPromptInjection` setting for one model (`'auto'` asks `nativeSupported`). */
export function resolveSchemaPlacement(
  mode: JsonPromptInjection,
  nativeSupported: () => boolean,
): SchemaPlacement {
  if (mode === false) return 'native'
  if (mode === true || mode === 'system') return 'system'
  if (mode === 'inline') return 'inline'
  return nativeSupported() ? 'native' : 'inline'
}

/** Placement for the single retry after an answer that was not valid JSON (Mastra's rule). */
export function fallbackSchemaPlacement(
  mode: JsonPromptInjection,
  fallback: 'system' | 'inline' | undefined,
): SchemaPlacement {
  if (fallback) return fallback
  return mode === 'inline' || mode === 'system' ? mode : 'system'
}

/** The text appended to the system message (the AI SDK's `injectJsonInstruction` wording). */
export function systemSchemaInstruction(schema: JSONSchema7): string {
  return `JSON schema:\n${JSON.stringify(schema)}\nYou MUST answer with a JSON object that matches the JSON schema above.`
}

/** The text part appended to the latest user message (Mastra's inline wording). */
export function inlineSchemaInstruction(schema: JSONSchema7): string {
  return `Return your response as JSON matching this schema:\n\n${JSON.stringify(schema)}\n\nReturn only valid JSON. Do not include markdown or explanatory text.`
}

/** Returns new messages carrying the schema as `placement` says (`native` leaves them as they are). */
export function injectSchema(
  messages: JudgeMessage[],
  placement: SchemaPlacement,
  schema: JSONSchema7,
): JudgeMessage[] {
  if (placement === 'native') return messages
  if (placement === 'system') {
    const first = messages[0]
    if (first?.role === 'system' && typeof first.content === 'string') {
      const content =
        first.content.length > 0
          ? `${first.content}\n\n${systemSchemaInstruction(schema)}`
          : systemSchemaInstruction(schema)
      return [{ ...first, content }, ...messages.slice(1)]
    }
    return [{ role: 'system', content: systemSchemaInstruction(schema) }, ...messages]
  }
  const part = { type: 'text', text: inlineSchemaInstruction(schema) }
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!
    if (message.role !== 'user') continue
    const parts =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : [...(message.content as unknown[])]
    const copy = [...messages]
    copy[i] = { ...message, content: [...parts, part] }
    return copy
  }
  return [...messages, { role: 'user', content: [part] }]
}
