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

/*
 * Parts are made as literals, never `{ type, ...(id ? { toolCallId } : {}), toolName }`: V8 builds
 * a key after a spread slowly, and readers make a part for every tool call and result of every
 * message (README, "Cost and hostile input").
 */

/** A tool-call part; `toolCallId` only when it is a string. */
export function toolCallPart(toolCallId: unknown, toolName: string, args: unknown): ChatPart {
  return typeof toolCallId === 'string'
    ? { type: 'tool-call', toolCallId, toolName, args }
    : { type: 'tool-call', toolName, args }
}

/** A tool-result part; `toolCallId` and `toolName` only when they are strings, `isError` only when true. */
export function toolResultPart(
  toolCallId: unknown,
  toolName: unknown,
  result: unknown,
  isError = false,
): ChatPart {
  const part = { type: 'tool-result' } as Extract<ChatPart, { type: 'tool-result' }>
  if (typeof toolCallId === 'string') part.toolCallId = toolCallId
  if (typeof toolName === 'string') part.toolName = toolName
  part.result = result
  if (isError) part.isError = true
  return part
}

/** A chat message as a convention recorded it, before it becomes a `MastraDBMessage`. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  parts: ChatPart[]
}

/** The text of a message: its text parts joined by newlines ('' when it has none). */
export function messageText(message: ChatMessage): string {
  // No arrays: asked of most messages, which hold one text part (then its text is the answer).
  let text: string | undefined
  for (const part of message.parts) {
    if (part.type === 'text') text = text === undefined ? part.text : `${text}\n${part.text}`
  }
  return text ?? ''
}
