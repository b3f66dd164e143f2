import { isDeepStrictEqual } from 'node:util'
import type { Span } from '../model/index.ts'
import type { ChatPart } from './chat-message.ts'
import type { ConventionReader, ToolSpanCall } from './conventions/convention-reader.ts'
import { readerFor } from './detect-convention.ts'
import type { ModelOutputs } from './model-outputs.ts'
import type { Notes } from './notes.ts'
import { isRecord, plainAttributes } from './read-attribute.ts'
import type { RunSpans } from './run-spans.ts'
import { spanError } from './span-error.ts'
import { compareNanos } from './span-tree.ts'
import { toolCallIdIn, toolErrorMessage, toolResultValue } from './tool-value.ts'
import { richness, twinToolSpans } from './twin-spans.ts'

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
  /** Its tool span cannot record a failure: the next prompt's result decides (see `ToolSpanCall`). */
  failureInPrompt?: boolean
  /** A tool span was joined to it (else it is only the model's request). */
  spanned: boolean
  timeUnixNano: string
  sequence: number
  step?: number
  /** Position among the calls the model calls asked for, when a model call mentions it. */
  modelOrder?: number
}

/**
 * A draft with every field present, so that filling it in never changes its shape (a draft made
 * with spreads, then written to, is slow: README, "Cost and hostile input").
 */
function newDraft(timeUnixNano: string, sequence: number): Draft {
  return {
    toolCallId: undefined,
    toolName: undefined,
    args: undefined,
    result: undefined,
    hasResult: false,
    errorText: undefined,
    spanned: false,
    timeUnixNano,
    sequence,
    step: undefined,
    modelOrder: undefined,
  }
}

/**
 * Every tool call of a run in call order: tool spans (what the tool saw and returned) joined
 * by tool-call id with the calls and results found in the model calls' messages, so calls
 * without a span (provider-executed tools, missing spans) are kept too. Every tool span is a
 * call of its own: two spans sharing a call id are both kept, with a note.
 */
export function collectToolCalls(run: RunSpans, notes: Notes, outputs: ModelOutputs): ToolCallRecord[] {
  const outputResults: ToolResultPart[] = []
  const drafts = callsFromModelOutputs(run, notes, outputs, outputResults)
  joinToolSpans(run, drafts, notes)
  if (run.failed.length > 0) failuresFromFailedSpans(run.failed, drafts)
  if (drafts.some((draft) => draft.toolCallId === undefined && draft.toolName !== undefined))
    idsFromLaterPrompts(run, drafts, notes)
  const byId = new Map<string, Draft[]>()
  for (const draft of drafts) {
    if (draft.toolCallId === undefined) continue
    const list = byId.get(draft.toolCallId)
    if (list) list.push(draft)
    else byId.set(draft.toolCallId, [draft])
  }
  let open = drafts.filter(isOpen).length
  open -= settle(byId, outputResults)
  // Prompts repeat the whole conversation at every step, so they are parsed only while a call is open.
  for (const model of run.models) {
    if (open === 0) break
    const results: ToolResultPart[] = []
    for (const message of readerFor(model)?.modelInput(model, notes) ?? []) {
      for (const part of message.parts) if (part.type === 'tool-result') results.push(part)
    }
    open -= settle(byId, results)
  }
  if (drafts.some(awaitsResultByName)) resultsByName(run, drafts, notes)
  alignToModelOrder(drafts)
  drafts.sort(callOrder)
  return drafts.map((draft, index) => finish(draft, index, notes))
}

/**
 * Gives calls recorded without an id (a streamed answer's tool call, rebuilt without its id) the id
 * the later prompts show for it: the first assistant tool call of the same name no other call has,
 * in prompt order. Its result is then found by that id.
 */
function idsFromLaterPrompts(run: RunSpans, drafts: Draft[], notes: Notes): void {
  const known = new Set<string>()
  for (const draft of drafts) if (draft.toolCallId !== undefined) known.add(draft.toolCallId)
  const waiting = drafts.filter((draft) => draft.toolCallId === undefined && draft.toolName !== undefined)
  for (const model of run.models) {
    for (const message of readerFor(model)?.modelInput(model, notes) ?? []) {
      if (message.role !== 'assistant') continue
      for (const part of message.parts) {
        if (part.type !== 'tool-call' || !part.toolCallId || known.has(part.toolCallId)) continue
        const index = waiting.findIndex((draft) => draft.toolName === part.toolName)
        if (index < 0) continue
        waiting[index]!.toolCallId = part.toolCallId
        known.add(part.toolCallId)
        waiting.splice(index, 1)
        if (waiting.length === 0) return
      }
    }
  }
}

/** A call no id names (Gemini's `functionCall` has none) that has no result or error yet. */
const awaitsResultByName = (draft: Draft) =>
  draft.toolCallId === undefined &&
  draft.toolName !== undefined &&
  !draft.hasResult &&
  draft.errorText === undefined

/**
 * Gives calls without an id the results a later prompt returns for them without an id, by tool
 * name (Gemini's `functionResponse`): of the results of one name a prompt holds, the last ones are
 * those of the calls of that name made before it, in order (earlier ones are the history's).
 */
function resultsByName(run: RunSpans, drafts: readonly Draft[], notes: Notes): void {
  for (const model of run.models) {
    let byName: Map<string, ToolResultPart[]> | undefined
    for (const message of readerFor(model)?.modelInput(model, notes) ?? []) {
      for (const part of message.parts) {
        if (part.type !== 'tool-result' || part.toolCallId || !part.toolName) continue
        byName ??= new Map()
        const list = byName.get(part.toolName)
        if (list) list.push(part)
        else byName.set(part.toolName, [part])
      }
    }
    if (!byName) continue
    for (const [name, results] of byName) {
      const before = drafts.filter(
        (draft) =>
          draft.toolCallId === undefined &&
          draft.toolName === name &&
          compareNanos(draft.timeUnixNano, model.startTimeUnixNano) <= 0,
      )
      const offset = results.length - before.length
      if (offset < 0) continue
      before.forEach((draft, index) => {
        if (!awaitsResultByName(draft)) return
        const part = results[offset + index]!
        if (part.isError) draft.errorText = errorTextOf(part.result)
        else {
          draft.result = part.result
          draft.hasResult = true
        }
      })
    }
  }
}

/**
 * The calls the model calls asked for, in the model's order. A call id repeated within one
 * model call's output is one call; the same id from another model call is another call (some
 * providers number calls per response). Results reported in outputs (provider-executed or
 * remote tools) are collected into `outputResults`.
 */
function callsFromModelOutputs(
  run: RunSpans,
  notes: Notes,
  outputs: ModelOutputs,
  outputResults: ToolResultPart[],
): Draft[] {
  const drafts: Draft[] = []
  let modelOrder = 0
  const add = (model: Span, toolCallId: string | undefined, toolName: string, args: unknown): Draft => {
    const draft = newDraft(model.endTimeUnixNano, drafts.length)
    draft.toolCallId = toolCallId || undefined
    draft.toolName = toolName
    draft.args = args
    draft.step = run.stepOf(model)
    draft.modelOrder = modelOrder++
    drafts.push(draft)
    return draft
  }
  run.models.forEach((model, index) => {
    const seen = new Map<string, Draft>()
    // What the answer holds: tool calls, or a text (a turn that only spoke asked for nothing).
    let answered = 0
    // Kept: the calls' arguments and results go into the run.
    for (const message of outputs.keep(model, notes) ?? []) {
      for (const part of message.parts) {
        if (part.type === 'tool-result' && part.toolCallId) outputResults.push(part)
        if (part.type === 'text' && part.text.trim() !== '') answered++
        if (part.type !== 'tool-call') continue
        answered++
        if (part.toolCallId) {
          // A call repeated in one output is one call; a later mention completes a streamed one.
          const earlier = seen.get(part.toolCallId)
          if (earlier) {
            if (part.args !== undefined && part.args !== null) earlier.args = part.args
            continue
          }
        }
        const draft = add(model, part.toolCallId, part.toolName, part.args)
        if (part.toolCallId) seen.set(part.toolCallId, draft)
      }
    }
    const next = run.models[index + 1]
    if (answered === 0 && next) {
      for (const part of callsOnlyInNextPrompt(model, next, drafts, notes)) {
        add(model, part.toolCallId, part.toolName, part.args)
        notes.add(
          `tool call ${part.toolCallId} read from the next prompt (model call ${model.spanId} recorded none)`,
        )
      }
    }
  })
  return drafts
}

type ToolCallPart = Extract<ChatPart, { type: 'tool-call' }>

/**
 * The tool calls a model call made that its recorded answer lost (a streamed answer rebuilt without
 * them: MLflow's `tool_calls: null` beside an empty text; asked only of an answer with neither text
 * nor tool call), read from the next model call's prompt: the assistant calls,
 * with ids no other call has, in the messages that prompt adds to this call's own (which it must
 * extend, role by role). None when either prompt is not recorded.
 */
function callsOnlyInNextPrompt(
  model: Span,
  next: Span,
  drafts: readonly Draft[],
  notes: Notes,
): ToolCallPart[] {
  const prompt = readerFor(model)?.modelInput(model, notes)
  const nextPrompt = prompt && readerFor(next)?.modelInput(next, notes)
  if (!prompt || !nextPrompt || nextPrompt.length <= prompt.length) return []
  for (let i = 0; i < prompt.length; i++) if (prompt[i]!.role !== nextPrompt[i]!.role) return []
  const known = new Set(drafts.map((draft) => draft.toolCallId))
  const calls: ToolCallPart[] = []
  for (const message of nextPrompt.slice(prompt.length)) {
    if (message.role !== 'assistant') continue
    for (const part of message.parts) {
      if (part.type !== 'tool-call' || !part.toolCallId || known.has(part.toolCallId)) continue
      known.add(part.toolCallId)
      calls.push(part)
    }
  }
  return calls
}

/**
 * Joins each tool span to the model's call it executed: by call id (the first such call not yet
 * joined), or, for a span without an id, the model's first unjoined call of that tool. A span
 * that matches no call is a call of its own, appended to `drafts`.
 */
function joinToolSpans(run: RunSpans, drafts: Draft[], notes: Notes): void {
  const requestedById = queues<string>()
  const requestedByName = queues<string>()
  for (const draft of drafts) {
    if (draft.toolCallId !== undefined) requestedById.add(draft.toolCallId, draft)
    if (draft.toolName !== undefined) requestedByName.add(draft.toolName, draft)
  }
  const spansPerId = new Map<string, number>()
  const reads: ToolSpanRead[] = []
  for (const span of run.tools) {
    const reader = readerFor(span)
    if (!reader) continue
    const call = reader.toolCall(span, notes)
    reads.push({ span, reader, call, name: call.toolName ?? toolNameFromSpanName(span.name) })
  }
  // Another instrumentation's copy of a tool span is the same call: merged into its draft.
  const partner = twinPartners(reads)
  const draftOf = partner && new Map<Span, Draft>()
  for (const { span, reader, call, name } of reads) {
    const twin = partner?.get(span)
    const twinDraft = twin && draftOf?.get(twin)
    if (twinDraft) {
      mergeTwin(twinDraft, twin, span, reader, call)
      continue
    }
    if (call.toolCallId !== undefined) {
      const count = (spansPerId.get(call.toolCallId) ?? 0) + 1
      spansPerId.set(call.toolCallId, count)
      if (count === 2)
        notes.add(`tool call id ${call.toolCallId} is shared by several tool spans; each is kept as a call`)
    }
    const requested =
      call.toolCallId !== undefined
        ? requestedById.take(call.toolCallId)
        : requestedByName.take(name ?? requestedNameIn(span.name, drafts))
    const draft = requested ?? newDraft(span.startTimeUnixNano, drafts.length)
    if (!requested) drafts.push(draft)
    draftOf?.set(span, draft)
    draft.spanned = true
    draft.timeUnixNano = span.startTimeUnixNano
    // A tool that started before the run's first step answered a model call the run lost (Quarkus
    // LangChain4j streaming: the first model span is a root of its own): a step before the first.
    const before = run.steps.length > 0 ? -1 : undefined
    const step = run.stepOf(span) ?? draft.step ?? run.stepAt(span.startTimeUnixNano) ?? before
    if (step !== undefined) draft.step = step
    draft.toolCallId = call.toolCallId ?? draft.toolCallId ?? toolCallIdIn(call.result) ?? span.spanId
    draft.toolName = call.toolName ?? draft.toolName ?? name
    // What the tool received, unless it is a bare value where the model named the arguments
    // (LangChain records a one-argument tool's value alone), or wraps the model's arguments one
    // level down beside options of the framework's own.
    if (wraps(call.args, draft.args))
      notes.add(`tool call ${draft.toolCallId}: arguments from the model's call (its tool span wraps them)`)
    else if (call.args !== undefined && !(isRecord(draft.args) && !isRecord(call.args)))
      draft.args = call.args
    if (call.hasResult) {
      draft.result = call.result
      draft.hasResult = true
    }
    if (call.failureInPrompt) draft.failureInPrompt = true
    const error = toolSpanError(span, reader, call)
    if (error !== undefined) draft.errorText = error
  }
}

/**
 * The tool a span's name names, for a tool span that records no tool name (an OpenInference TOOL
 * span named after the tool's function): the first requested call not yet joined whose tool name is
 * the span name, or begins it before a method or call suffix (`lookup_order.run`, `lookup_order(…)`),
 * or ends it after a label (`Tool: lookup_order`); else the one it names in another case or as a
 * class (`FinalAnswerTool`).
 */
function requestedNameIn(spanName: string, drafts: readonly Draft[]): string | undefined {
  const name = spanName.trim()
  for (const draft of drafts) {
    const tool = draft.toolName
    if (tool === undefined || tool === '' || draft.spanned) continue
    if (name === tool) return tool
    if (name.startsWith(tool) && /^[.:(\s]/.test(name.slice(tool.length))) return tool
    if (name.endsWith(tool) && /[\s:.]$/.test(name.slice(0, -tool.length))) return tool
  }
  // Written in another case, as a class (`FinalAnswerTool` for `final_answer`).
  const squashed = squash(name)
  for (const draft of drafts) {
    if (draft.toolName && !draft.spanned && squash(draft.toolName) === squashed) return draft.toolName
  }
  return undefined
}

/** A name without case, separators or a trailing `tool`: `FinalAnswerTool`, `final_answer` → `finalanswer`. */
const squash = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .replace(/tool$/, '')

/** Whether a tool span's arguments hold the model's arguments as one of their values, beside others. */
function wraps(spanArgs: unknown, modelArgs: unknown): boolean {
  if (!isRecord(spanArgs) || !isRecord(modelArgs) || Object.keys(modelArgs).length === 0) return false
  for (const key in spanArgs) if (isDeepStrictEqual(spanArgs[key], modelArgs)) return true
  return false
}

/**
 * A failed tool span's error text: its reader's reading, else the span's; where the span names
 * only the error's type (`error.type`, or a code: `TOOL_ERROR`), the message of the `{"error": …}` result the
 * tool's error handler returned. A span whose status says nothing but whose attributes record a
 * failure (`failureInAttributes`) failed with its result as the message. Undefined when the span
 * did not fail.
 */
function toolSpanError(span: Span, reader: ConventionReader, call: ToolSpanCall): string | undefined {
  const error = spanError(span) ?? reader.failure?.(span)
  if (error === undefined) {
    const type = failureInAttributes(span)
    return type === undefined ? undefined : (errorInResult(call.result, true) ?? type)
  }
  const own = reader.toolError?.(span)
  if (own !== undefined) return own
  const onlyType = error === span.attributes['error.type'] || /^[A-Z][A-Z0-9_]*$/.test(error)
  return (onlyType && errorInResult(call.result, false)) || error
}

/** The message of an `{"error": …}` result, or (`plainText`) the result itself when it is a text. */
function errorInResult(result: unknown, plainText: boolean): string | undefined {
  if (isRecord(result) && typeof result.error === 'string') return result.error
  return plainText && typeof result === 'string' && result !== '' ? result : undefined
}

const FAILED_OUTCOME = /^(?:error|fail(?:ed|ure)?)$/i

/**
 * A failure a tool span records in its attributes, not its status (Rig, and other `tracing`-based
 * or hand-written instrumentations leave the status unset): an outcome key (`gen_ai.tool.call.outcome`,
 * any key ending in `outcome`) saying `error` / `failure`, or an error type (`error.type`, any key
 * ending in `error.type`). Gives that value; undefined when none says so.
 */
function failureInAttributes(span: Span): string | undefined {
  const attributes = plainAttributes(span.attributes)
  for (const key in attributes) {
    const value = attributes[key]
    if (typeof value !== 'string' || value === '') continue
    if (key.endsWith('outcome') ? FAILED_OUTCOME.test(value) : key.endsWith('error.type')) return value
  }
  return undefined
}

/**
 * Calls the model asked for that no tool span executed, marked failed by a span in error status
 * that names their tool (its span name, or an attribute whose key ends in `name`) and started after
 * the model asked: a tool's own decorator or function span no reader takes for a tool span. Each
 * such span fails the latest call of its tool asked for before it started.
 */
function failuresFromFailedSpans(failed: readonly Span[], drafts: readonly Draft[]): void {
  for (const span of failed) {
    const names = namesOf(span)
    let latest: Draft | undefined
    for (const draft of drafts) {
      if (draft.spanned || draft.errorText !== undefined || draft.toolName === undefined) continue
      if (!names.has(draft.toolName) || compareNanos(draft.timeUnixNano, span.startTimeUnixNano) > 0) continue
      if (!latest || compareNanos(draft.timeUnixNano, latest.timeUnixNano) >= 0) latest = draft
    }
    if (latest) latest.errorText = spanError(span)
  }
}

/** What a span is named: its name and the text of every attribute whose key ends in `name`. */
function namesOf(span: Span): Set<string> {
  const names = new Set([span.name.trim()])
  const attributes = plainAttributes(span.attributes)
  for (const key in attributes) {
    const value = attributes[key]
    if (typeof value === 'string' && /name$/i.test(key)) names.add(value.trim())
  }
  return names
}

/** A tool span as its reader read it, with the tool's name (from the span name when not recorded). */
interface ToolSpanRead {
  span: Span
  reader: ConventionReader
  call: ToolSpanCall
  name: string | undefined
}

/**
 * Each tool span that has a twin (another instrumentation's copy) mapped to it, both ways; undefined
 * when none has, as in nearly every run (one instrumentation), which then builds no maps at all.
 */
function twinPartners(reads: readonly ToolSpanRead[]): Map<Span, Span> | undefined {
  let bySpan: Map<Span, ToolSpanRead> | undefined
  const twins = twinToolSpans(
    reads.map((read) => read.span),
    (span) => {
      bySpan ??= new Map(reads.map((read) => [read.span, read]))
      const { call, name } = bySpan.get(span)!
      return { toolCallId: call.toolCallId, toolName: name }
    },
  )
  if (twins.size === 0) return undefined
  const partner = new Map<Span, Span>()
  for (const [later, first] of twins) partner.set(later, first).set(first, later)
  return partner
}

/**
 * Folds a second instrumentation's copy of a tool span into the call its first copy made: an
 * error in either copy is kept, the richer arguments and result win, and the copy's call id
 * replaces a span id the first copy stood in with.
 */
function mergeTwin(
  draft: Draft,
  first: Span,
  span: Span,
  reader: ConventionReader,
  call: ToolSpanCall,
): void {
  if (call.toolCallId !== undefined && draft.toolCallId === first.spanId) draft.toolCallId = call.toolCallId
  draft.toolName ??= call.toolName
  if (richness(call.args) > richness(draft.args)) draft.args = call.args
  if (call.hasResult && (!draft.hasResult || richness(call.result) > richness(draft.result))) {
    draft.result = call.result
    draft.hasResult = true
  }
  if (draft.errorText === undefined) draft.errorText = spanError(span) && toolSpanError(span, reader, call)
}

/** Lists of drafts by key, each taken from the front, skipping drafts a tool span already joined. */
function queues<K>() {
  const lists = new Map<K, { drafts: Draft[]; next: number }>()
  return {
    add(key: K, draft: Draft): void {
      const queue = lists.get(key)
      if (queue) queue.drafts.push(draft)
      else lists.set(key, { drafts: [draft], next: 0 })
    },
    take(key: K | undefined): Draft | undefined {
      const queue = key === undefined ? undefined : lists.get(key)
      while (queue && queue.next < queue.drafts.length) {
        const draft = queue.drafts[queue.next++]!
        if (!draft.spanned) return draft
      }
      return undefined
    },
  }
}

type ToolResultPart = Extract<ChatPart, { type: 'tool-result' }>

/** Whether a prompt may still settle the call: no result or error yet, or a failure its span cannot record. */
function isOpen(draft: Draft): boolean {
  if (draft.toolCallId === undefined || draft.errorText !== undefined) return false
  return !draft.hasResult || draft.failureInPrompt === true
}

/**
 * Gives open calls the results that name them; returns how many it settled. The n-th result
 * naming an id in one list belongs to the n-th call with that id (a prompt repeats every
 * earlier result, so a result already given is skipped, never given to a later call).
 */
function settle(byId: ReadonlyMap<string, readonly Draft[]>, results: readonly ToolResultPart[]): number {
  if (results.length === 0) return 0
  const seen = new Map<string, number>()
  let settled = 0
  for (const part of results) {
    if (!part.toolCallId) continue
    const occurrence = seen.get(part.toolCallId) ?? 0
    seen.set(part.toolCallId, occurrence + 1)
    const draft = byId.get(part.toolCallId)?.[occurrence]
    if (!draft || !isOpen(draft)) continue
    if (part.isError) draft.errorText = errorTextOf(part.result)
    else if (!draft.hasResult) {
      draft.result = part.result
      draft.hasResult = true
    }
    draft.failureInPrompt = false
    settled++
  }
  return settled
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
  // The name starts at a non-space: the spaces before it can be read one way only.
  const match = /^(?:execute_tool|tool\.execute|tool:)\s+'?([^'\s][^']*?)'?$/.exec(name.trim())
  return match?.[1]
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
  if (draft.args === undefined)
    notes.missing('toolArguments', `tool call ${toolCallId} (${toolName}): arguments not recorded`)
  // Keys set in order, no `{ ...base, state }` (README, "Cost and hostile input").
  const record = {
    toolCallId,
    toolName,
    args: draft.args ?? {},
    timeUnixNano: draft.timeUnixNano,
    sequence: index,
  } as ToolCallRecord
  if (draft.step !== undefined) record.step = draft.step
  if (draft.errorText !== undefined) {
    record.state = 'output-error'
    record.errorText = toolErrorMessage(draft.errorText)
  } else if (draft.hasResult) {
    record.state = 'result'
    record.result = toolResultValue(draft.result)
  } else {
    notes.missing('toolResults', `tool call ${toolCallId} (${toolName}): result not recorded`)
    record.state = 'call'
  }
  return record
}
