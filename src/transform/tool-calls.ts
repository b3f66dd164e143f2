import type { Span } from '../model/index.ts'
import type { ChatPart } from './chat-message.ts'
import { readerFor } from './detect-convention.ts'
import type { Notes } from './notes.ts'
import type { RunSpans } from './run-spans.ts'
import { spanError } from './span-error.ts'
import { compareNanos } from './span-tree.ts'

/** One tool call of a run, joined from its tool span and the model messages that mention it. */
export interface ToolCallRecord {
  toolCallId: string
  toolName: string
  args: unknown
  state: 'call' | 'result' | 'output-error'
  result?: unknown
  errorText?: string
  /** When the call happened (tool span start, or the end of the model call that asked for it). */
  timeUnixNano: string
  /** Position among the calls of the run. */
  sequence: number
  /** The agent-loop step that made the call, when known. */
  step?: number
}

interface Draft {
  toolCallId?: string
  toolName?: string
  args?: unknown
  result?: unknown
  hasResult: boolean
  errorText?: string
  timeUnixNano: string
  sequence: number
  step?: number
  /** Position among the calls the model calls asked for, when a model call mentions it. */
  modelOrder?: number
}

/**
 * Every tool call of a run in call order: tool spans (what the tool saw and returned) joined
 * by tool-call id with the calls and results found in the model calls' messages, so calls
 * without a span (provider-executed tools, missing spans) are kept too.
 */
export function collectToolCalls(run: RunSpans, notes: Notes): ToolCallRecord[] {
  const { models, tools } = run
  const byId = new Map<string, Draft>()
  const drafts: Draft[] = []
  let sequence = 0
  let modelOrder = 0
  const outputResults: ToolResultPart[] = []

  for (const model of models) {
    const reader = readerFor(model)
    if (!reader) continue
    for (const message of reader.modelOutput(model, notes) ?? []) {
      for (const part of message.parts) {
        // Outputs that report provider-executed or remote tools carry their results too.
        if (part.type === 'tool-result' && part.toolCallId) outputResults.push(part)
        if (part.type !== 'tool-call') continue
        if (part.toolCallId && byId.has(part.toolCallId)) continue
        const draft: Draft = {
          toolName: part.toolName,
          args: part.args,
          hasResult: false,
          timeUnixNano: model.endTimeUnixNano,
          sequence: sequence++,
          modelOrder: modelOrder++,
          ...stepField(run.stepOf(model)),
          ...(part.toolCallId ? { toolCallId: part.toolCallId } : {}),
        }
        drafts.push(draft)
        if (part.toolCallId) byId.set(part.toolCallId, draft)
      }
    }
  }

  // Model-requested calls by tool name, in the model's order, for tool spans without a call id.
  const unclaimed = new Map<string, { drafts: Draft[]; next: number }>()
  for (const draft of drafts) {
    if (draft.toolName === undefined) continue
    const queue = unclaimed.get(draft.toolName)
    if (queue) queue.drafts.push(draft)
    else unclaimed.set(draft.toolName, { drafts: [draft], next: 0 })
  }
  const claimed = new Set<Draft>()
  const claimByName = (name: string | undefined): Draft | undefined => {
    const queue = name === undefined ? undefined : unclaimed.get(name)
    while (queue && queue.next < queue.drafts.length) {
      const draft = queue.drafts[queue.next++]!
      if (!claimed.has(draft)) return draft
    }
    return undefined
  }
  for (const span of tools) {
    const reader = readerFor(span)
    if (!reader) continue
    const call = reader.toolCall(span, notes)
    const name = call.toolName ?? toolNameFromSpanName(span.name)
    // A tool span without a call id is matched to the model's first unclaimed call of that tool.
    const known = call.toolCallId ? byId.get(call.toolCallId) : claimByName(name)
    if (known) claimed.add(known)
    const draft: Draft = known ?? {
      hasResult: false,
      timeUnixNano: span.startTimeUnixNano,
      sequence: sequence++,
    }
    if (!known) {
      drafts.push(draft)
      if (call.toolCallId) byId.set(call.toolCallId, draft)
    }
    draft.timeUnixNano = span.startTimeUnixNano
    const step = run.stepOf(span) ?? draft.step ?? run.stepAt(span.startTimeUnixNano)
    if (step !== undefined) draft.step = step
    draft.toolCallId = call.toolCallId ?? draft.toolCallId ?? span.spanId
    draft.toolName = call.toolName ?? draft.toolName ?? name
    if (call.args !== undefined) draft.args = call.args
    if (call.hasResult) {
      draft.result = call.result
      draft.hasResult = true
    }
    const error = spanError(span)
    if (error !== undefined) draft.errorText = error
  }

  settle(drafts, outputResults)
  settleFromModelInputs(drafts, models, notes)

  alignToModelOrder(drafts)
  drafts.sort(callOrder)
  return drafts.map((draft, index) => finish(draft, index, notes))
}

/**
 * Settles calls that no tool span settled (no span, or content capture off on it) from the
 * tool results later model calls were sent. Prompts are only parsed while some call is open,
 * as they repeat the whole conversation at every step.
 */
function settleFromModelInputs(drafts: readonly Draft[], models: readonly Span[], notes: Notes): void {
  for (const model of models) {
    if (!drafts.some(isOpen)) return
    const results: ToolResultPart[] = []
    for (const message of readerFor(model)?.modelInput(model, notes) ?? []) {
      for (const part of message.parts) if (part.type === 'tool-result') results.push(part)
    }
    settle(drafts, results)
  }
}

type ToolResultPart = Extract<ChatPart, { type: 'tool-result' }>

function isOpen(draft: Draft): boolean {
  return draft.toolCallId !== undefined && !draft.hasResult && draft.errorText === undefined
}

/** Gives open calls the results that name them. */
function settle(drafts: readonly Draft[], results: readonly ToolResultPart[]): void {
  if (results.length === 0) return
  const open = new Map<string, Draft>()
  for (const draft of drafts) if (isOpen(draft)) open.set(draft.toolCallId!, draft)
  for (const part of results) {
    const draft = part.toolCallId ? open.get(part.toolCallId) : undefined
    if (!draft) continue
    if (part.isError) draft.errorText = errorTextOf(part.result)
    else {
      draft.result = part.result
      draft.hasResult = true
    }
    open.delete(part.toolCallId!)
  }
}

/**
 * Sorts drafts into call order in place. Calls a model asked for keep the model's order: each
 * is placed no earlier than the one the model asked for before it (a call without a tool span
 * only knows when its model call ended). Calls seen only as tool spans fall in by start time.
 */
function callOrder(a: Draft, b: Draft): number {
  return (
    compareNanos(a.timeUnixNano, b.timeUnixNano) ||
    (a.modelOrder !== undefined && b.modelOrder !== undefined ? a.modelOrder - b.modelOrder : 0) ||
    a.sequence - b.sequence
  )
}

/** Makes the times of model-requested calls non-decreasing in the model's order. */
function alignToModelOrder(drafts: Draft[]): void {
  const requested = drafts
    .filter((draft) => draft.modelOrder !== undefined)
    .sort((a, b) => a.modelOrder! - b.modelOrder!)
  let latest: string | undefined
  for (const draft of requested) {
    if (latest !== undefined && compareNanos(draft.timeUnixNano, latest) < 0) draft.timeUnixNano = latest
    latest = draft.timeUnixNano
  }
}

/**
 * The tool name in a tool span's name, for spans that lack the name attribute:
 * `execute_tool <name>` (GenAI), `tool.execute <name>` (Mastra before 1.0), `tool: '<name>'`.
 */
function toolNameFromSpanName(name: string): string | undefined {
  const match = /^(?:execute_tool|tool\.execute|tool:)\s+'?([^']+?)'?$/.exec(name.trim())
  return match?.[1]
}

function stepField(step: number | undefined): { step?: number } {
  return step === undefined ? {} : { step }
}

function errorTextOf(result: unknown): string {
  if (typeof result === 'string') return result
  try {
    return JSON.stringify(result) ?? 'error'
  } catch {
    return 'error'
  }
}

function finish(draft: Draft, index: number, notes: Notes): ToolCallRecord {
  const toolCallId = draft.toolCallId ?? `call-${index}`
  const toolName = draft.toolName ?? 'unknown'
  if (!draft.toolName) notes.add(`tool call ${toolCallId}: tool name not recorded`)
  if (draft.args === undefined) notes.add(`tool call ${toolCallId} (${toolName}): arguments not recorded`)
  const base = {
    toolCallId,
    toolName,
    args: draft.args ?? {},
    timeUnixNano: draft.timeUnixNano,
    sequence: index,
    ...stepField(draft.step),
  }
  if (draft.errorText !== undefined) return { ...base, state: 'output-error', errorText: draft.errorText }
  if (draft.hasResult) return { ...base, state: 'result', result: draft.result }
  notes.add(`tool call ${toolCallId} (${toolName}): result not recorded`)
  return { ...base, state: 'call' }
}
