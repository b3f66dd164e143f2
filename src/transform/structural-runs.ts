import type { Span } from '../model/index.ts'
import { type ChatMessage, messageText } from './chat-message.ts'
import { agentNameOf, genericReader } from './conventions/generic.ts'
import { readerFor, spanRole } from './detect-convention.ts'
import { Notes } from './notes.ts'
import { byStart, compareNanos, type SpanTree } from './span-tree.ts'

/*
 * Runs by structure (issue 27): a run is the outermost span that holds one conversation of model
 * calls, whatever the spans are called. Every convention records model calls alike, so:
 * - a conversation is known by its first prompt: the system text and the first user message (each
 *   later prompt of the same run repeats them);
 * - a candidate agent span whose conversation is its enclosing run's is a step of that run, not a
 *   run (a graph's per-step agent node); one with no model call and no input of its own inside a
 *   run is a pseudo-tool (a framework's `final_answer`);
 * - model calls no run holds make runs of their own: the outermost span above them that holds no
 *   other conversation and is not a tool call (a tool call that runs an agent is its caller's);
 * - a later sibling run that takes over the same conversation with other instructions continues
 *   the first (a handoff).
 * Every pass walks each span's ancestors once, remembering what it found on the way.
 */

/** What a model call's first prompt opens with: the conversation it belongs to. */
interface Opening {
  system: string
  user: string
}

const silent = new Notes()

/** The opening of a model call's prompt; undefined when its prompt was not recorded. */
function openingOf(model: Span, read: { openings?: Map<Span, Opening | undefined> }): Opening | undefined {
  read.openings ??= new Map()
  const cache = read.openings
  if (cache.has(model)) return cache.get(model)
  const prompt = promptOf(model)
  let opening: Opening | undefined
  if (prompt && prompt.length > 0) {
    const system = prompt
      .filter((message) => message.role === 'system')
      .map(messageText)
      .join('\n')
    const user = prompt.find((message) => message.role === 'user')
    opening = { system, user: user ? messageText(user) : '' }
  }
  cache.set(model, opening)
  return opening
}

const sameOpening = (a: Opening | undefined, b: Opening | undefined) =>
  a !== undefined && b !== undefined && a.system === b.system && a.user === b.user

/**
 * The first model call under each span, worked out when first asked: only a trace with nested
 * candidates or with calls no run holds asks (most traces never do).
 */
function firstModelUnderOf(trace: { tree: SpanTree; models: Span[]; firstModelUnder?: Map<Span, Span> }) {
  if (trace.firstModelUnder) return trace.firstModelUnder
  const firstModelUnder = new Map<Span, Span>()
  for (const model of [...trace.models].sort(byStart)) {
    for (let at = trace.tree.parentOf(model); at && !firstModelUnder.has(at); at = trace.tree.parentOf(at))
      firstModelUnder.set(at, model)
  }
  trace.firstModelUnder = firstModelUnder
  return firstModelUnder
}

/**
 * The nearest span strictly above `span` that is in `set`; `memo` (one per `set`, which must not
 * change) remembers it for every span passed on the way, so each span is walked once.
 */
function nearestAbove(
  tree: SpanTree,
  span: Span,
  set: ReadonlySet<Span>,
  memo: Map<Span, Span | null>,
): Span | undefined {
  const path: Span[] = []
  let found: Span | null = null
  for (let at = tree.parentOf(span); at; at = tree.parentOf(at)) {
    if (set.has(at)) {
      found = at
      break
    }
    const known = memo.get(at)
    if (known !== undefined) {
      found = known
      break
    }
    path.push(at)
  }
  for (const at of path) memo.set(at, found)
  return found ?? undefined
}

/** Outer spans before the spans they hold: by start, the longer first. */
function outerFirst(a: Span, b: Span): number {
  return (
    compareNanos(a.startTimeUnixNano, b.startTimeUnixNano) ||
    compareNanos(b.endTimeUnixNano, a.endTimeUnixNano)
  )
}

/** The parts of a trace's runs that structure decides. */
export interface StructuredRuns {
  /** Candidates that are runs (steps and pseudo-tools removed), in the order given. */
  kept: Span[]
  /** Runs found by structure alone (their spans carry no known agent vocabulary), earliest first. */
  found: Span[]
  /** Candidates that are a framework's pseudo-tool (`final_answer`): tool calls of the run around them. */
  pseudoTools: Span[]
}

/**
 * Keeps the candidate agent spans that are runs of their own and finds the runs no vocabulary
 * names. `candidates` are sorted by start; `models` are the trace's model-call spans, in no
 * particular order.
 */
export function structureRuns(
  { tree, models }: { tree: SpanTree; models: Span[] },
  candidates: readonly Span[],
  continuations: ReadonlyMap<string, readonly Span[]>,
): StructuredRuns {
  const trace: TraceModels = { tree, models }
  const pseudoTools: Span[] = []
  // One candidate sits inside no other: nothing to decide (most traces).
  const kept =
    candidates.length > 1
      ? keptCandidates(trace, candidates, continuations, pseudoTools)
      : new Set(candidates)
  if (kept.size > 1) for (const turn of turnsOfOneRun(trace, kept)) kept.delete(turn)
  const keptInOrder: Span[] = []
  for (const span of candidates) if (kept.has(span)) keptInOrder.push(span)
  return { kept: keptInOrder, found: runsOfOrphanCalls(trace, heads(kept, continuations), kept), pseudoTools }
}

/** What finding runs by structure reads of one trace, worked out once (no closures per trace). */
interface TraceModels {
  tree: SpanTree
  /** The model-call spans, in no particular order. */
  models: Span[]
  /** Set by `firstModelUnderOf`. */
  firstModelUnder?: Map<Span, Span>
  /** Each model call's opening, read when first asked (`openingOf`). */
  openings?: Map<Span, Opening | undefined>
  /** The tool-call spans, listed when first asked (`toolSpans`). */
  tools?: Set<Span>
  /** Model calls inside a run that hold a conversation of their own under its tool call (`nestedConversation`). */
  nested?: Set<Span>
}

/** The candidates that are runs: not a step of the run around them, not a pseudo-tool (added to `pseudoTools`). */
function keptCandidates(
  trace: TraceModels,
  candidates: readonly Span[],
  continuations: ReadonlyMap<string, readonly Span[]>,
  pseudoTools: Span[],
): Set<Span> {
  const { tree } = trace
  const firstModelUnder = firstModelUnderOf(trace)
  const candidateSet = new Set(candidates)
  const memo = new Map<Span, Span | null>()
  const tools: ToolStops = { stops: undefined, memo: new Map() }
  // A candidate that is not a run hands its place to the run around it.
  const runAround = new Map<Span, Span | undefined>()
  const kept = new Set<Span>()
  for (const candidate of [...candidates].sort(outerFirst)) {
    let outer = nearestAbove(tree, candidate, candidateSet, memo)
    if (outer && !kept.has(outer)) outer = runAround.get(outer)
    if (outer === undefined || startedByTool(tree, candidate, candidates, tools)) {
      kept.add(candidate)
      continue
    }
    // Its first model call, also where its run goes on in the spans that continue it.
    const later = continuations.get(candidate.spanId) ?? []
    const own = firstModelUnder.get(candidate) ?? firstCallIn(later, firstModelUnder)
    const pseudoTool = own === undefined && later.length === 0 && isPseudoTool(candidate)
    const isStep = own
      ? sameOpening(openingOf(own, trace), openingOf(firstModelUnder.get(outer) ?? own, trace))
      : pseudoTool
    if (pseudoTool) pseudoTools.push(candidate)
    if (isStep) runAround.set(candidate, outer)
    else kept.add(candidate)
  }
  return kept
}

/**
 * Candidates that are turns of one run, not runs: sibling agent spans that name no agent (an
 * auto-instrumentation's bare `invoke_agent` on a framework's task or turn spans), each one's first
 * prompt the one before it continued with no new user message. Their model calls are left to the
 * calls no run holds, whose run is the span above them that holds the conversation (and may name
 * the agent). Asked only of kept candidates that share a parent.
 */
function turnsOfOneRun(trace: TraceModels, kept: ReadonlySet<Span>): Span[] {
  const { tree } = trace
  const byParent = new Map<Span, Span[]>()
  for (const span of kept) {
    const parent = tree.parentOf(span)
    if (!parent || kept.has(parent) || spanRole(parent) === 'tool') continue
    const siblings = byParent.get(parent)
    if (siblings) siblings.push(span)
    else byParent.set(parent, [span])
  }
  const turns: Span[] = []
  for (const siblings of byParent.values()) {
    if (siblings.length < 2) continue
    siblings.sort(byStart)
    const prompts: ChatMessage[][] = []
    for (const span of siblings) {
      const first = firstModelUnderOf(trace).get(span)
      const prompt = first && !readerFor(span)?.identity(span).agentName ? promptOf(first) : undefined
      if (!prompt) break
      prompts.push(prompt)
    }
    if (prompts.length < siblings.length) continue
    if (prompts.every((prompt, index) => index === 0 || continues(prompts[index - 1]!, prompt)))
      turns.push(...siblings)
  }
  return turns
}

/**
 * A model call's recorded prompt. Finding runs never throws: the run that holds the call notes what
 * reading it threw.
 */
function promptOf(model: Span): ChatMessage[] | undefined {
  try {
    return readerFor(model)?.modelInput(model, silent)
  } catch {
    return undefined
  }
}

/** Whether a prompt goes on from an earlier one with no new user message: same system and user texts, more messages. */
function continues(earlier: readonly ChatMessage[], later: readonly ChatMessage[]): boolean {
  if (later.length <= earlier.length) return false
  const asked = (prompt: readonly ChatMessage[]) =>
    prompt
      .filter((message) => message.role === 'system' || message.role === 'user')
      .map((message) => `${message.role}:${messageText(message)}`)
      .join('\u0000')
  return asked(earlier) === asked(later)
}

/** The first model call among spans (a model call itself, or the first one under it). */
function firstCallIn(spans: readonly Span[], firstModelUnder: ReadonlyMap<Span, Span>): Span | undefined {
  for (const span of spans) {
    const call = spanRole(span) === 'model' ? span : firstModelUnder.get(span)
    if (call) return call
  }
  return undefined
}

/** The tool spans of a trace (listed when first asked) and the nearest one above each span. */
interface ToolStops {
  stops: Set<Span> | undefined
  memo: Map<Span, Span | null>
}

/** Whether a tool call started a candidate: a nested run (an agent as a tool), never a step. */
function startedByTool(
  tree: SpanTree,
  candidate: Span,
  candidates: readonly Span[],
  tools: ToolStops,
): boolean {
  if (spanRole(candidate) === 'tool') return true
  if (tools.stops === undefined) {
    tools.stops = new Set(candidates)
    for (const span of tree.byId.values()) if (spanRole(span) === 'tool') tools.stops.add(span)
  }
  return spanRole(nearestAbove(tree, candidate, tools.stops, tools.memo) ?? candidate) === 'tool'
}

/** The conversations runs already hold: a call of one that lost its parent makes no run of its own. */
function heldKeys(trace: TraceModels, runs: ReadonlySet<Span>): Set<string> {
  const keys = new Set<string>()
  for (const run of runs) {
    const first = firstModelUnderOf(trace).get(run)
    if (first) keys.add(keyOf(openingOf(first, trace)))
  }
  return keys
}

/**
 * An agent span that is a framework's pseudo-tool (`final_answer`): named like a tool, with no
 * model call and no input of its own (asked only of candidates inside a run).
 */
function isPseudoTool(span: Span): boolean {
  const toolLike =
    /final[_ ]?answer/i.test(span.name) || genericReader.toolCall(span, silent).toolName !== undefined
  return toolLike && spanRole(span) === 'agent' && readerFor(span)?.agentInput(span, silent) === undefined
}

/** The spans that head a part of a run: each run span and the spans that continue it. */
function heads(
  runs: ReadonlySet<Span>,
  continuations: ReadonlyMap<string, readonly Span[]>,
): ReadonlySet<Span> {
  if (continuations.size === 0) return runs
  const all = new Set(runs)
  for (const run of runs) for (const span of continuations.get(run.spanId) ?? []) all.add(span)
  return all
}

/** A key for a conversation's opening. */
const keyOf = (opening: Opening | undefined) => (opening ? `${opening.system}\u0000${opening.user}` : '')

/** The model calls no run holds, and not under a span whose parent is missing, wrappers left out. */
function orphanCalls(trace: TraceModels, runs: ReadonlySet<Span>): Span[] {
  const { tree, models } = trace
  // Most traces: every call sits right under its run, and no collection is made.
  let underRun: Map<Span, Span | null> | undefined
  const lostParent = tree.orphans.length > 0 ? new Set(tree.orphans) : undefined
  let underLost: Map<Span, Span | null> | undefined
  // Calls under a span whose parent is missing belong to the run that lost it (`lost-agent-runs.ts`).
  const orphans: Span[] = []
  for (const model of models) {
    if (runs.has(model) || lostParent?.has(model)) continue
    const parent = tree.parentOf(model)
    if (parent !== undefined && runs.has(parent)) continue
    underRun ??= new Map()
    const run = nearestAbove(tree, model, runs, underRun)
    if (run !== undefined) {
      if (!nestedConversation(trace, model, run)) continue
      trace.nested ??= new Set()
      trace.nested.add(model)
    }
    if (lostParent) {
      underLost ??= new Map()
      if (nearestAbove(tree, model, lostParent, underLost) !== undefined) continue
    }
    orphans.push(model)
  }
  if (orphans.length < 2) return orphans
  orphans.sort(byStart)
  // A model span that holds another is a wrapper of it (an agent span that records a prompt).
  const holdsModel = new Set<Span>()
  for (const model of orphans)
    for (let at = tree.parentOf(model); at && !holdsModel.has(at); at = tree.parentOf(at)) holdsModel.add(at)
  return orphans.filter((model) => !holdsModel.has(model))
}

/**
 * Whether a model call inside a run holds a conversation of its own under one of the run's tool
 * calls (an agent the tool runs, with no agent span any vocabulary names): its first prompt is
 * recorded and opens otherwise than the run's.
 */
function nestedConversation(trace: TraceModels, model: Span, run: Span): boolean {
  const tools = toolSpans(trace)
  if (tools.size === 0) return false
  let underTool = false
  for (let at = trace.tree.parentOf(model); at && at !== run; at = trace.tree.parentOf(at))
    if (tools.has(at)) underTool = true
  if (!underTool) return false
  const opening = openingOf(model, trace)
  const first = firstModelUnderOf(trace).get(run)
  return (
    opening !== undefined &&
    first !== undefined &&
    first !== model &&
    !sameOpening(opening, openingOf(first, trace))
  )
}

/** Marks a call's conversation key whose prompt was not recorded: by the tool call above it. */
const UNREAD = '\u0001'

/**
 * Runs for the model calls no run holds: per conversation, the outermost span above its calls that
 * holds no other conversation's calls, no other run and no tool call that started it.
 */
function runsOfOrphanCalls(trace: TraceModels, runs: ReadonlySet<Span>, kept: ReadonlySet<Span>): Span[] {
  const { tree } = trace
  const calls = orphanCalls(trace, runs)
  if (calls.length === 0) return []
  const held = heldKeys(trace, kept)
  // Each span above a call is marked with the conversation of the calls below it ('' when several).
  const mark = new Map<Span, string>()
  const markUp = (from: Span, key: string) => {
    for (let at = tree.parentOf(from); at; at = tree.parentOf(at)) {
      if (spanRole(at) === 'tool') return
      const seen = mark.get(at)
      if (seen === key || seen === '') return
      mark.set(at, seen === undefined ? key : '')
    }
  }
  for (const run of runs) markUp(run, `run\u0000${run.spanId}`)
  const groups = new Map<string, Span[]>()
  const toolAbove = new Map<Span, Span | null>()
  for (const call of calls) {
    // A call whose prompt was not recorded shows no conversation: the calls with none between the
    // same tool calls (none, or the one that started an agent) are taken as one conversation.
    const opening = openingOf(call, trace)
    const key = opening
      ? keyOf(opening)
      : `${UNREAD}${nearestAbove(tree, call, toolSpans(trace), toolAbove)?.spanId ?? ''}`
    markUp(call, key)
    const group = groups.get(key)
    if (group) group.push(call)
    else groups.set(key, [call])
  }
  const found: Span[] = []
  for (const [key, group] of groups) {
    // A tool that asks a model once is a tool, not an agent: a conversation inside a run's tool
    // call is a run when it goes on past one call or its calls name their agent.
    const tool = trace.nested && group.every((call) => trace.nested!.has(call))
    if (tool && group.length < 2 && !group.some(namesAgent)) continue
    const run = held.has(key) ? undefined : runOfGroup(tree, group, key, mark, tool === true)
    if (run) found.push(run)
  }
  return found.sort(byStart)
}

/**
 * The run span of one conversation's calls: of the spans above them marked with its key alone, the
 * innermost that names an agent, else the outermost (for calls inside a run's tool call: at least
 * the tool call). Calls whose prompts were not recorded show no conversation of their own: their
 * run must name an agent or speak a known vocabulary (Spring AI's chat client), never a request
 * span around one model call.
 */
function runOfGroup(
  tree: SpanTree,
  group: readonly Span[],
  key: string,
  mark: ReadonlyMap<Span, string>,
  inToolCall: boolean,
) {
  let top = lowestCommonAncestor(tree, group)
  if (spanRole(top) === 'model') {
    const parent = tree.parentOf(top)
    // Inside a run's tool call, the tool call right above the agent's calls heads its run.
    if (parent && (inToolCall || (spanRole(parent) !== 'tool' && mark.get(parent) === key))) top = parent
  }
  const spine = [top]
  for (let parent = tree.parentOf(top); parent && mark.get(parent) === key; parent = tree.parentOf(parent))
    spine.push(parent)
  const named = spine.find(namesAgent)
  if (named || !key.startsWith(UNREAD)) return named ?? spine[spine.length - 1]!
  return spine.findLast((span) => spanRole(span) !== 'model' && readerFor(span) !== undefined)
}

/** The tool-call spans of a trace (listed when first asked). */
function toolSpans(trace: TraceModels): Set<Span> {
  if (!trace.tools) {
    trace.tools = new Set()
    for (const span of trace.tree.byId.values()) if (spanRole(span) === 'tool') trace.tools.add(span)
  }
  return trace.tools
}

/** Whether a span names an agent (an attribute or its name), as the generic reader reads it. */
function namesAgent(span: Span): boolean {
  return agentNameOf(span) !== undefined
}

/** The deepest span that is, or is above, every span of `spans` (the first one's root at worst). */
function lowestCommonAncestor(tree: SpanTree, spans: readonly Span[]): Span {
  const first = spans[0]!
  const chain: Span[] = []
  for (let at: Span | undefined = first; at; at = tree.parentOf(at)) chain.push(at)
  const depth = new Map(chain.map((span, index) => [span, index]))
  let lowest = 0
  for (const span of spans.slice(1)) {
    let at: Span | undefined = span
    while (at && !depth.has(at)) at = tree.parentOf(at)
    lowest = Math.max(lowest, at ? depth.get(at)! : chain.length - 1)
  }
  return chain[lowest]!
}

/** No handoff (most traces: one run), one map for all. */
const NONE: ReadonlyMap<Span, Span[]> = new Map()

/**
 * Later runs that continue an earlier one: siblings (same parent span) whose first prompt opens
 * with the same user message under other instructions (a handoff gives the conversation to another
 * agent). Returns the continuations by the run they continue.
 */
export function handoffs(
  { tree, models }: { tree: SpanTree; models: Span[] },
  runs: readonly Span[],
): ReadonlyMap<Span, Span[]> {
  // Only runs beside another run under the same span can be a handoff: none in most traces.
  if (runs.length < 2) return NONE
  const parents = new Set<string>()
  let siblings = false
  for (const run of runs) {
    if (!run.parentSpanId) continue
    if (parents.has(run.parentSpanId)) siblings = true
    parents.add(run.parentSpanId)
  }
  if (!siblings) return NONE
  const firstModelUnder = firstModelUnderOf({ tree, models })
  const read = {}
  const chains = new Map<Span, Span[]>()
  const lastByParent = new Map<string, { head: Span; opening: Opening }>()
  for (const run of runs) {
    const first = spanRole(run) === 'model' ? run : firstModelUnder.get(run)
    const opening = first && openingOf(first, read)
    if (!opening || !run.parentSpanId) continue
    const earlier = lastByParent.get(run.parentSpanId)
    if (earlier && earlier.opening.user === opening.user && earlier.opening.system !== opening.system) {
      const chain = chains.get(earlier.head)
      if (chain) chain.push(run)
      else chains.set(earlier.head, [run])
      continue
    }
    lastByParent.set(run.parentSpanId, { head: run, opening })
  }
  return chains
}
