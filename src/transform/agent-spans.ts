import { groupByTrace, type Span } from '../model/index.ts'
import { type ChatMessage, messageText } from './chat-message.ts'
import { mayHoldMessages, withGenericReading } from './conventions/generic.ts'
import { readerFor, spanRole, withSpanCache } from './detect-convention.ts'
import { Notes } from './notes.ts'
import { plainAttributes } from './read-attribute.ts'
import { buildSpanTree, byStart, type SpanTree, walkBelow } from './span-tree.ts'
import { handoffs, structureRuns } from './structural-runs.ts'

/**
 * Whether a span may be the span of one agent run (a turn of one agent), in any known
 * convention. True for every agent span; conventions whose runs need the trace to be known (a
 * graph's outermost chain, a workflow wrapper) give candidates that `findAgentSpans` confirms.
 */
export function isAgentRunSpan(span: Span): boolean {
  return spanRole(span) === 'agent'
}

/**
 * True for a span that shows GenAI activity (an agent, model, tool or step span of a known
 * convention), or that holds a string attribute the generic reader may read as a model call's
 * prompt or answer (`mayHoldMessages`). Runs are also headed by such spans when no agent span
 * heads them (a CrewAI delegation under its tool span, smolagents steps whose agent span is
 * missing), and a run of spans of no known vocabulary is found around its model calls, so a trace
 * with one is worth transforming. A span of no known vocabulary that only names a tool is not
 * enough: runs are found around model calls (`structural-runs.ts`). The ingest scan answers the
 * content part on the bytes (`ScannedSpans.mayHoldMessages`), which a role view does not hold.
 */
export function isGenAiSpan(span: Span): boolean {
  return spanRole(span) !== 'other' || holdsMessages(span)
}

/** Whether one of a span's attributes may hold messages (no parse: a look at each string value). */
function holdsMessages(span: Span): boolean {
  const attributes = plainAttributes(span.attributes)
  for (const key in attributes) if (mayHoldMessages(attributes[key]!)) return true
  return false
}

/** The agent-run spans among `spans` (the spans `extractAgentRuns` gives runs for), earliest first. */
export function findAgentSpans(spans: readonly Span[]): Span[] {
  return withGenericReading(() =>
    [...groupByTrace(spans).values()]
      .flatMap((trace) => withSpanCache(trace.length, () => findRuns(buildSpanTree(trace)).runs))
      .sort(byStart),
  )
}

/** No run found by structure alone (most traces), one set for all. */
const NOT_FOUND: ReadonlySet<Span> = new Set()

/** The runs of one trace and the spans that head them. */
interface TraceRuns {
  /** Run spans, earliest first. */
  runs: Span[]
  /** Spans that head a part of a run, by span id: each run span and its continuations. */
  runOf: Map<string, Span>
  /** The continuations of each run (later agents of a handoff chain), by run span id. */
  continuations: Map<string, Span[]>
  /** Runs found by structure alone: no known agent vocabulary names them (read by the generic reader). */
  structural: ReadonlySet<Span>
  /** Agent spans that are a framework's pseudo-tool (`final_answer`): tool calls of their run. */
  pseudoTools: ReadonlySet<Span>
}

/**
 * The runs of one trace: every agent-span candidate its convention confirms, minus the spans
 * that continue another run (a handoff chain is one run) and minus wrappers. A wrapper is an
 * agent span that records no messages of its own (none, or only copies of its model calls'
 * prompt and answer) and makes no model or tool call of its own but holds runs (a workflow or
 * runner span around one invocation): it would only be an empty copy of them.
 */
export function findRuns(tree: SpanTree): TraceRuns {
  const confirmed: Span[] = []
  // Finding runs by structure reads the model calls: listed in the same pass.
  const models: Span[] = []
  for (const span of tree.byId.values()) {
    const reader = readerFor(span)
    const role = spanRole(span)
    if (role !== 'agent') {
      if (role === 'model') models.push(span)
      if (reader?.headsRun?.(span, tree)) confirmed.push(span)
      continue
    }
    if (!reader?.confirmRun || reader.confirmRun(span, tree)) confirmed.push(span)
  }
  confirmed.sort(byStart)
  const runOf = new Map<string, Span>()
  const continuations = new Map<string, Span[]>()
  for (const run of confirmed) {
    if (runOf.has(run.spanId)) continue
    runOf.set(run.spanId, run)
    const later = readerFor(run)?.runContinuations?.(run, tree) ?? []
    const own = later.filter((span) => span !== run && !runOf.has(span.spanId))
    for (const span of own) runOf.set(span.spanId, run)
    if (own.length > 0) continuations.set(run.spanId, own)
  }
  const named = confirmed.filter((run) => runOf.get(run.spanId) === run && !isWrapper(tree, run, runOf))
  // Structure decides what vocabulary cannot: steps and pseudo-tools are no runs, model calls no
  // run holds make runs of their own, a handoff to another agent continues a run.
  const { kept: namedRuns, found, pseudoTools } = structureRuns({ tree, models }, named, continuations)
  for (const run of found) runOf.set(run.spanId, run)
  // Found runs are few (none in most traces); the named ones are in start order already.
  const runs = found.length === 0 ? namedRuns : [...namedRuns, ...found].sort(byStart)
  for (const [head, chain] of handoffs({ tree, models }, runs)) {
    const own = chain.filter((span) => !continuations.has(span.spanId))
    for (const span of own) runOf.set(span.spanId, head)
    if (own.length > 0) continuations.set(head.spanId, [...(continuations.get(head.spanId) ?? []), ...own])
  }
  const kept = new Set(runs.filter((run) => runOf.get(run.spanId) === run))
  for (const [id, run] of runOf) if (!kept.has(run)) runOf.delete(id)
  return {
    runs: [...kept],
    runOf,
    continuations,
    structural: found.length === 0 ? NOT_FOUND : new Set(found),
    pseudoTools: pseudoTools.length === 0 ? NOT_FOUND : new Set(pseudoTools),
  }
}

/** Whether a run span only wraps other runs: no model or tool call of its own, no messages, and runs under it. */
function isWrapper(tree: SpanTree, run: Span, runOf: ReadonlyMap<string, Span>): boolean {
  let holdsRuns = false
  const worksItself = walkBelow(tree, run, (span) => {
    if (runOf.has(span.spanId)) {
      holdsRuns = true
      return 'skip'
    }
    const role = spanRole(span)
    return role === 'model' || role === 'tool' ? 'stop' : undefined
  })
  if (worksItself || !holdsRuns) return false
  const reader = readerFor(run)
  const silent = new Notes()
  const input = reader?.agentInput(run, silent)
  const output = reader?.agentOutput(run, silent)
  return (!input && !output) || liftedFromModels(tree, run, input, output)
}

/** A message list as comparable text: each message's role and text. */
function transcript(messages: readonly ChatMessage[]): string {
  return JSON.stringify(messages.map((message) => [message.role, messageText(message)]))
}

/**
 * Whether a wrapper's messages are only copies of what model calls under it recorded: its input
 * one call's prompt, its output one call's answer (OpenInference's OpenAI Agents JS processor
 * lifts the first prompt and the last answer of the trace onto its workflow span). Such messages
 * are not its own.
 */
function liftedFromModels(
  tree: SpanTree,
  run: Span,
  input: ChatMessage[] | undefined,
  output: ChatMessage[] | undefined,
): boolean {
  const silent = new Notes()
  const prompt = input ? transcript(input) : undefined
  const answer = output ? output.map(messageText).join('\n') : undefined
  let promptSeen = prompt === undefined
  let answerSeen = answer === undefined
  walkBelow(tree, run, (span) => {
    if (spanRole(span) !== 'model') return undefined
    const reader = readerFor(span)
    if (!promptSeen) {
      const messages = reader?.modelInput(span, silent)
      promptSeen = messages !== undefined && transcript(messages) === prompt
    }
    if (!answerSeen) {
      const messages = reader?.modelOutput(span, silent)
      answerSeen = messages !== undefined && messages.map(messageText).join('\n') === answer
    }
    return promptSeen && answerSeen ? 'stop' : undefined
  })
  return promptSeen && answerSeen
}
