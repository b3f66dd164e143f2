import type { Span } from '../model/index.ts'
import type { AgentIdentity } from './conventions/convention-reader.ts'
import { readerFor, spanRole } from './detect-convention.ts'
import { byStart, compareNanos, type SpanTree } from './span-tree.ts'

/**
 * Two instrumentations of one framework in one trace (its own spans and OpenInference's, or
 * OpenInference and OpenLLMetry) record each agent invocation and each tool execution twice, one
 * copy nested in the other. These helpers find the copies so that a run is rebuilt once, from
 * both: the agent spans of the other instrumentation around a run span, and the pairs of tool
 * spans that are one execution.
 */

/** Whether two spans come from different instrumentations (their scopes differ). */
const otherInstrumentation = (a: Span, b: Span) => a.scope.name !== b.scope.name

/**
 * The other instrumentations' agent spans of the same invocation as `agent`: the agent spans
 * around it, nearest first, up to the first span that is not an agent span, that another
 * instrumentation wrote and that head no run themselves (they were dropped as wrappers of it).
 */
export function twinAgentSpans(tree: SpanTree, agent: Span, isRun: (span: Span) => boolean): Span[] {
  const twins: Span[] = []
  for (let parent = tree.parentOf(agent); parent; parent = tree.parentOf(parent)) {
    if (spanRole(parent) !== 'agent' || isRun(parent)) break
    if (otherInstrumentation(parent, agent)) twins.push(parent)
  }
  return twins
}

/**
 * A run's identity with what its agent span lacks taken from the other instrumentations' copies
 * (nearest first): the agent's name may be only in one of them, the conversation in another.
 */
export function withTwins(own: AgentIdentity, twins: readonly Span[], tree: SpanTree): AgentIdentity {
  const out: AgentIdentity = {
    agentId: own.agentId,
    agentName: own.agentName,
    conversationId: own.conversationId,
    spanName: own.spanName,
  }
  for (const twin of twins) {
    const other = readerFor(twin)?.identity(twin, tree) ?? {}
    out.agentId ??= other.agentId
    out.agentName ??= other.agentName
    out.conversationId ??= other.conversationId
    out.spanName ??= other.spanName
  }
  return out
}

/** Whether the spans come from more than one instrumentation scope (one pass, no allocation). */
function twoScopes(spans: readonly Span[]): boolean {
  const first = spans[0]?.scope.name
  for (let i = 1; i < spans.length; i++) if (spans[i]!.scope.name !== first) return true
  return false
}

/** What pairing needs of a tool span: its call id and tool name, when recorded. */
interface ToolKey {
  toolCallId?: string
  toolName?: string
}

/** Spans in start order, read from the front: `head` skips those no later span can pair with. */
interface Queue {
  spans: Span[]
  head: number
}

/**
 * The tool spans that are another instrumentation's copy of an earlier tool span of the run, each
 * mapped to that earlier span. Two spans are one execution when they come from different
 * instrumentations and their call ids are equal where both have one, else their tool names are
 * equal and their times overlap; each span pairs at most once, earliest first. Spans wait in
 * queues by instrumentation and call id or tool name, so each is passed over at most once.
 */
export function twinToolSpans(tools: readonly Span[], keyOf: (span: Span) => ToolKey): Map<Span, Span> {
  const twinOf = new Map<Span, Span>()
  // Twins come from two instrumentations: with one (nearly every trace) there is nothing to pair.
  if (!twoScopes(tools)) return twinOf
  const paired = new Set<Span>()
  const queues = new Map<string, Queue>()
  // The instrumentations seen with each queue key: only the others' queues are asked.
  const scopesOf = new Map<string, Set<string>>()
  const front = (key: string, later: Span): Span | undefined => {
    const queue = queues.get(key)
    if (!queue) return undefined
    while (queue.head < queue.spans.length) {
      const span = queue.spans[queue.head]!
      // Paired, or ended before this span started (and so before any later one): never again.
      if (!paired.has(span) && compareNanos(span.endTimeUnixNano, later.startTimeUnixNano) >= 0) return span
      queue.head++
    }
    return undefined
  }
  const idFront = (key: string): Span | undefined => {
    const queue = queues.get(key)
    while (queue && queue.head < queue.spans.length) {
      const span = queue.spans[queue.head]!
      if (!paired.has(span)) return span
      queue.head++
    }
    return undefined
  }
  const enqueue = (key: string, span: Span) => {
    const queue = queues.get(key)
    if (queue) queue.spans.push(span)
    else queues.set(key, { spans: [span], head: 0 })
  }
  for (const later of [...tools].sort(byStart)) {
    const { toolCallId, toolName } = keyOf(later)
    const own = later.scope.name
    const others = (key: string) => [...(scopesOf.get(key) ?? [])].filter((scope) => scope !== own)
    const candidates: Span[] = []
    if (toolCallId !== undefined) {
      for (const scope of others(`id:${toolCallId}`)) {
        const span = idFront(`${scope}\u0000id:${toolCallId}`)
        if (span) candidates.push(span)
      }
    }
    if (candidates.length === 0 && toolName !== undefined) {
      // Without a shared id: the same tool running at the same time (a span with an id pairs by
      // name only with one that has none).
      for (const scope of others(`name:${toolName}`)) {
        for (const kind of toolCallId === undefined ? ['anon', 'ided'] : ['anon']) {
          const span = front(`${scope}\u0000${kind}:${toolName}`, later)
          if (span) candidates.push(span)
        }
      }
    }
    const first = candidates.sort(byStart)[0]
    if (first) {
      twinOf.set(later, first)
      paired.add(first)
      paired.add(later)
      continue
    }
    const keys: [string, string][] = []
    if (toolCallId !== undefined) keys.push([`id:${toolCallId}`, `id:${toolCallId}`])
    if (toolName !== undefined)
      keys.push([`name:${toolName}`, `${toolCallId === undefined ? 'anon' : 'ided'}:${toolName}`])
    for (const [seenKey, queueKey] of keys) {
      enqueue(`${own}\u0000${queueKey}`, later)
      const scopes = scopesOf.get(seenKey)
      if (scopes) scopes.add(own)
      else scopesOf.set(seenKey, new Set([own]))
    }
  }
  return twinOf
}

/**
 * How much a recorded value says: nothing (undefined, null, empty text), a bare value, or an
 * object or list by its number of entries. The richer copy's arguments and result win.
 */
export function richness(value: unknown): number {
  if (value === undefined || value === null || value === '') return 0
  if (Array.isArray(value)) return 2 + value.length
  if (typeof value === 'object') return 2 + Object.keys(value).length
  return 1
}
