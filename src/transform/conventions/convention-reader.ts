import type { Convention, Span } from '../../model/index.ts'
import type { ChatMessage } from '../chat-message.ts'
import type { Notes } from '../notes.ts'
import type { SpanTree } from '../span-tree.ts'

/**
 * What a span is to an agent run: the run itself, a model call, a tool call, one step of the
 * agent loop (a model call and the tools it asked for), or anything else.
 */
export type SpanRole = 'agent' | 'model' | 'tool' | 'step' | 'other'

/** Who ran: the agent and the conversation it belongs to. */
export interface AgentIdentity {
  agentId?: string
  agentName?: string
  conversationId?: string
  /**
   * A name only inferred from the span's name (an OpenInference AGENT span without `agent.name`):
   * the agent's name when no other source, another instrumentation's copy included, records one.
   */
  spanName?: string
}

/** One tool execution as its span recorded it; fields are undefined when not captured. */
export interface ToolSpanCall {
  toolCallId?: string
  toolName?: string
  args?: unknown
  result?: unknown
  /** Whether the span carries a result attribute at all (a tool may return undefined). */
  hasResult: boolean
  /**
   * The span cannot say that the call failed (its instrumentation's ERROR status never sticks):
   * the result the next prompt sends the model says so, where the framework marks failed results.
   */
  failureInPrompt?: boolean
}

/**
 * A tool span's call with some fields changed: one literal, where `{ ...call, result }` is slow
 * (a key after a spread; README, "Cost and hostile input"), for every tool span.
 */
export function changedCall(call: ToolSpanCall, changes: Partial<ToolSpanCall>): ToolSpanCall {
  return {
    toolCallId: 'toolCallId' in changes ? changes.toolCallId : call.toolCallId,
    toolName: 'toolName' in changes ? changes.toolName : call.toolName,
    args: 'args' in changes ? changes.args : call.args,
    result: 'result' in changes ? changes.result : call.result,
    hasResult: changes.hasResult ?? call.hasResult,
    failureInPrompt: changes.failureInPrompt ?? call.failureInPrompt,
  }
}

/**
 * Reads one instrumentation convention. Each method reads one span and returns undefined for
 * what the span does not record; problems (bad JSON...) go to `notes`, never thrown.
 */
export interface ConventionReader {
  convention: Convention
  /** Whether the span was written by this convention. */
  matches(span: Span): boolean
  role(span: Span): SpanRole
  /**
   * Who ran; `tree` is given for a run span whose framework records its identity on other spans
   * (LlamaIndex names the agent only below it; the OpenAI Agents SDK under Logfire keeps the
   * conversation on its trace span above it).
   */
  identity(span: Span, tree?: SpanTree): AgentIdentity
  /** The agent's system instructions recorded on its agent span. */
  instructions(span: Span, notes: Notes): string[] | undefined
  /**
   * What the caller passed to the agent (may include earlier history and system messages); `tree`
   * is given for frameworks that record it on a span above the run span.
   */
  agentInput(span: Span, notes: Notes, tree?: SpanTree): ChatMessage[] | undefined
  /** The response messages recorded on the agent span. */
  agentOutput(span: Span, notes: Notes): ChatMessage[] | undefined
  /** The full prompt of one model call, system messages included. */
  modelInput(span: Span, notes: Notes): ChatMessage[] | undefined
  /** What one model call answered (text and tool calls). */
  modelOutput(span: Span, notes: Notes): ChatMessage[] | undefined
  toolCall(span: Span, notes: Notes): ToolSpanCall
  /** Application metadata recorded on the span (user ids, tags, custom keys). */
  metadata(span: Span, notes: Notes): Record<string, unknown>
  /**
   * The error text of a failed tool span, where the convention records it better than the span
   * status (an SDK envelope around the tool's own message). Undefined: use the status.
   */
  toolError?(span: Span): string | undefined
  /**
   * The error of a span that failed without status ERROR, where the convention records a failure
   * only as an `exception` event (Quarkus LangChain4j). Undefined: the span did not fail.
   */
  failure?(span: Span): string | undefined
  /**
   * Whether an agent-span candidate (`role` said `agent`) is the span of a run of its own, seen
   * with its trace: for conventions where the span alone cannot tell (a graph's outermost chain).
   * Absent: every candidate is a run.
   */
  confirmRun?(span: Span, tree: SpanTree): boolean
  /**
   * Spans outside a run span's subtree that belong to its run, with everything under them: the
   * later agents of a handoff chain, which the framework records as siblings of the first.
   */
  runContinuations?(span: Span, tree: SpanTree): Span[]
  /**
   * Whether a span that is not an agent span heads a run all the same: a framework that runs an
   * agent inside a tool without an agent span of its own (CrewAI's delegation). The span stays a
   * tool call of the run around it.
   */
  headsRun?(span: Span, tree: SpanTree): boolean
  /**
   * The model calls a model-call span of the run holds, where a framework records several calls
   * on one span (ADK traced by OpenInference overwrites one span at every call): a stand-in span
   * per call, in call order, each read as a model call of its own. Asked of the run's reader for
   * each model-call span of the run; undefined: the span is one call.
   */
  unfoldModelCalls?(span: Span, tree: SpanTree, notes: Notes): Span[] | undefined
  /**
   * A run's first model prompt as the program gave it, where the framework wraps the program's
   * instructions and input in its own template (the prompt may come from another convention's
   * model spans).
   */
  unwrapPrompt?(messages: ChatMessage[]): ChatMessage[]
}
