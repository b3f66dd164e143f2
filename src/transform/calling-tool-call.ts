import type { Span } from '../model/index.ts'
import type { ChatMessage } from './chat-message.ts'
import type { ToolSpanCall } from './conventions/convention-reader.ts'
import { readerFor, spanRole } from './detect-convention.ts'
import { Notes } from './notes.ts'
import { isRecord } from './read-attribute.ts'
import type { SpanTree } from './span-tree.ts'

/**
 * An agent called as a tool (Google ADK's `AgentTool`, a tool function that runs another agent and
 * returns its answer): the tool span of the calling run between the run's agent span and the
 * caller's. Where the called run's own spans recorded no input or no final text (content only in
 * log records, a sub-agent with capture off), the call's arguments and result are what the caller
 * gave it and what it gave back, held in the trace all the same. Read once, on the first ask.
 */
export class CallingToolCall {
  private call: ToolSpanCall | undefined | null = null
  private readonly tree: SpanTree
  private readonly agent: Span
  private readonly callerSpanId: string | undefined

  constructor(tree: SpanTree, agent: Span, callerSpanId: string | undefined) {
    this.tree = tree
    this.agent = agent
    this.callerSpanId = callerSpanId
  }

  /** The call's arguments as the run's input: one user message, when they are one text. */
  input(notes: Notes): ChatMessage[] | undefined {
    const text = oneText(this.read()?.args)
    if (text === undefined) return undefined
    notes.add("input: the calling tool call's arguments (the agent ran as a tool of its caller)")
    return [{ role: 'user', parts: [{ type: 'text', text }] }]
  }

  /** The call's result as the run's final text, when it is one text. */
  finalText(notes: Notes): string | undefined {
    const text = oneText(this.read()?.result)
    if (text !== undefined)
      notes.add("final text: the calling tool call's result (the agent ran as a tool of its caller)")
    return text
  }

  private read(): ToolSpanCall | undefined {
    if (this.call === null) this.call = this.find()
    return this.call
  }

  /**
   * The nearest tool span above the agent span, below the calling run's span, at most
   * `MAX_HOPS` spans up (a framework's own spans between the two): a bounded walk, so that runs
   * under a deep chain of spans cost no more each (README, "Cost and hostile input").
   */
  private find(): ToolSpanCall | undefined {
    if (this.callerSpanId === undefined) return undefined
    let span = this.tree.parentOf(this.agent)
    for (let hops = 0; hops < MAX_HOPS && span && span.spanId !== this.callerSpanId; hops++) {
      // The tool span's own problems are the caller's run's notes, not this run's.
      if (spanRole(span) === 'tool') return readerFor(span)?.toolCall(span, new Notes())
      span = this.tree.parentOf(span)
    }
    return undefined
  }
}

/** How far above a called agent's span its calling tool span may be. */
const MAX_HOPS = 4

/**
 * A value that is one text: a non-empty string, or an object with a single field holding one
 * (`{"request": …}`, `{"result": …}`). Anything else is not guessed at.
 */
function oneText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.length > 0 ? value : undefined
  if (!isRecord(value)) return undefined
  let only: unknown
  let count = 0
  for (const key in value) {
    if (++count > 1) return undefined
    only = value[key]
  }
  return typeof only === 'string' && only.length > 0 ? only : undefined
}
