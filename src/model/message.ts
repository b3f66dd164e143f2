/**
 * Mastra's message and scorer-run shapes (`@mastra/core` 1.x `MastraDBMessage`,
 * `ScorerRunInputForAgent`, `ScorerRunOutputForAgent`), so scorers written for Mastra run unchanged.
 */

export interface ToolInvocation {
  toolCallId: string
  toolName: string
  args: unknown
  state:
    | 'partial-call'
    | 'call'
    | 'result'
    | 'approval-requested'
    | 'approval-responded'
    | 'output-error'
    | 'output-denied'
  step?: number
  result?: unknown
  isError?: boolean
  errorText?: string
  rawInput?: unknown
  approval?: { id: string; approved?: boolean; reason?: string }
}

interface PartBase {
  providerMetadata?: Record<string, unknown>
  /** Epoch milliseconds. */
  createdAt?: number
}

interface TextPart extends PartBase {
  type: 'text'
  text: string
}
interface ReasoningPart extends PartBase {
  type: 'reasoning'
  reasoning: string
  details: ({ type: 'text'; text: string; signature?: string } | { type: 'redacted'; data: string })[]
}
export interface ToolInvocationPart extends PartBase {
  type: 'tool-invocation'
  toolInvocation: ToolInvocation
  providerExecuted?: boolean
  title?: string
  preliminary?: boolean
}
interface StepStartPart extends PartBase {
  type: 'step-start'
  model?: string
}
interface FilePart extends PartBase {
  type: 'file'
  mimeType: string
  data: string
  filename?: string
}
interface SourcePart extends PartBase {
  type: 'source'
  source: { sourceType: 'url'; id: string; url: string; title?: string; providerMetadata?: unknown }
}
interface SourceDocumentPart extends PartBase {
  type: 'source-document'
  sourceId: string
  mediaType: string
  title: string
  filename?: string
}
interface ErrorPart extends PartBase {
  type: 'error'
  error: { name: string; message: string }
}
interface DataPart extends PartBase {
  type: `data-${string}`
  data: unknown
  id?: string
}

export type MastraMessagePart =
  | TextPart
  | ReasoningPart
  | ToolInvocationPart
  | StepStartPart
  | FilePart
  | SourcePart
  | SourceDocumentPart
  | ErrorPart
  | DataPart

export interface MastraMessageContentV2 {
  format: 2
  parts: MastraMessagePart[]
  /** Text mirror: the (latest) text of the message. */
  content?: string
  /** Legacy AI SDK v4 mirror of the tool-invocation parts. */
  toolInvocations?: ToolInvocation[]
  reasoning?: string
  experimental_attachments?: { url: string; contentType?: string; name?: string }[]
  annotations?: unknown[]
  metadata?: Record<string, unknown>
  providerMetadata?: Record<string, unknown>
}

/** A stored message as Mastra keeps it (`MastraDBMessage`). */
export interface MastraDBMessage {
  id: string
  role: 'user' | 'assistant' | 'system' | 'signal'
  createdAt: Date
  threadId?: string
  resourceId?: string
  type?: string
  content: MastraMessageContentV2
}

/** AI SDK v4 system message, as Mastra puts agent instructions into `systemMessages`. */
interface CoreSystemMessage {
  role: 'system'
  content: string
  providerOptions?: Record<string, unknown>
}

/** AI SDK v4 message (`CoreMessage`), loosely typed. */
type CoreMessage =
  | CoreSystemMessage
  | { role: 'user' | 'assistant' | 'tool'; content: unknown; providerOptions?: Record<string, unknown> }

/** What an agent-type scorer receives as `run.input`. */
export interface ScorerRunInputForAgent {
  /** The new user message(s) of this turn. */
  inputMessages: MastraDBMessage[]
  /** Earlier conversation loaded from memory. */
  rememberedMessages: MastraDBMessage[]
  /** Untagged system messages; the agent instructions come first. */
  systemMessages: CoreMessage[]
  /** System messages added under a tag (by processors or memory). */
  taggedSystemMessages: Record<string, CoreSystemMessage[]>
}

/** What an agent-type scorer receives as `run.output`: the response messages of the turn. */
export type ScorerRunOutputForAgent = MastraDBMessage[]
