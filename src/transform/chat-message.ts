/**
 * The convention-neutral form every reader produces before messages are shaped as Mastra
 * stores them: a role and a list of parts, tool calls and results joined later by id.
 */

/** One piece of a neutral chat message. */
export type ChatPart =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool-call'; toolCallId?: string; toolName: string; args: unknown }
  | { type: 'tool-result'; toolCallId?: string; toolName?: string; result: unknown; isError?: boolean }
  | { type: 'file'; mimeType: string; data: string }

/** A chat message as a convention recorded it, before it becomes a `MastraDBMessage`. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  parts: ChatPart[]
}

/** The text of a message: its text parts joined by newlines ('' when it has none). */
export function messageText(message: ChatMessage): string {
  return message.parts
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('\n')
}
