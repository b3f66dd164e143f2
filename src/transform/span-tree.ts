import type { Span } from '../model/index.ts'

/** The spans of one trace as a tree: lookup by id, children in start order, and the orphans. */
export interface SpanTree {
  byId: Map<string, Span>
  /** Children of a span, in the order they arrived. */
  children(spanId: string): Span[]
  /** Spans without a parent id, and the span where a parent cycle was cut (see `buildSpanTree`). */
  roots: Span[]
  /** Spans whose parent id names a span that is not in the trace. */
  orphans: Span[]
  /** The parent of a span in this tree: none for roots and orphans. */
  parentOf(span: Span): Span | undefined
}

/**
 * Compares two decimal nanosecond strings numerically. The decoder writes them without leading
 * zeros, so the longer number is larger and equal lengths compare as text; anything else (a
 * leading zero, an empty string) goes through BigInt, unreadable values counting as 0.
 */
export function compareNanos(a: string, b: string): number {
  if (a.length > 0 && b.length > 0 && (a[0] !== '0' || a.length === 1) && (b[0] !== '0' || b.length === 1)) {
    if (a.length !== b.length) return a.length < b.length ? -1 : 1
    return a < b ? -1 : a > b ? 1 : 0
  }
  const x = toBigInt(a)
  const y = toBigInt(b)
  return x < y ? -1 : x > y ? 1 : 0
}

/** A decimal nanosecond string as epoch milliseconds (0 when unreadable). */
export function nanosToMillis(nanos: string): number {
  return Number(toBigInt(nanos) / 1_000_000n)
}

function toBigInt(nanos: string): bigint {
  try {
    return BigInt(nanos)
  } catch {
    return 0n
  }
}

/** Orders spans by start time, then end time, then id (stable for identical timestamps). */
export function byStart(a: Span, b: Span): number {
  return (
    compareNanos(a.startTimeUnixNano, b.startTimeUnixNano) ||
    compareNanos(a.endTimeUnixNano, b.endTimeUnixNano) ||
    (a.spanId < b.spanId ? -1 : a.spanId > b.spanId ? 1 : 0)
  )
}

/**
 * Builds the tree of one trace's spans. A span id seen twice (a replayed export) keeps the copy
 * that ended last. Parent ids that loop (A's parent is B, B's parent is A: corrupt or hostile
 * data) would leave the spans of the loop unreachable from any root, so each loop is cut at one of
 * its spans, which becomes a root.
 */
export function buildSpanTree(spans: readonly Span[]): SpanTree {
  const byId = new Map<string, Span>()
  for (const span of spans) {
    const known = byId.get(span.spanId)
    if (!known || compareNanos(span.endTimeUnixNano, known.endTimeUnixNano) >= 0) byId.set(span.spanId, span)
  }
  const childrenOf = new Map<string, Span[]>()
  const roots: Span[] = []
  const orphans: Span[] = []
  for (const span of byId.values()) {
    const parentId = span.parentSpanId
    if (!parentId) roots.push(span)
    else if (!byId.has(parentId) || parentId === span.spanId) orphans.push(span)
    else {
      const list = childrenOf.get(parentId)
      if (list) list.push(span)
      else childrenOf.set(parentId, [span])
    }
  }
  const children = (spanId: string): Span[] => childrenOf.get(spanId) ?? []
  const cut = cutCycles(byId, [...roots, ...orphans], children)
  for (const span of cut) {
    const siblings = childrenOf.get(span.parentSpanId!)!
    siblings.splice(siblings.indexOf(span), 1)
    roots.push(span)
  }
  const parentOf = (span: Span): Span | undefined =>
    span.parentSpanId === undefined || cut.has(span) ? undefined : byId.get(span.parentSpanId)
  return { byId, children, roots, orphans, parentOf }
}

/**
 * The spans at which to cut parent cycles: spans not reachable from `starts` hang, through their
 * ancestors, from a cycle. Walking up from one such span reaches a span seen twice, which is on
 * the loop; cutting there makes the whole loop and all that hangs from it reachable. Each span is
 * walked over a bounded number of times, so this stays linear.
 */
function cutCycles(
  byId: ReadonlyMap<string, Span>,
  starts: readonly Span[],
  children: (spanId: string) => Span[],
): ReadonlySet<Span> {
  // Below the roots and orphans every span has one parent, so a walk meets each span once: when it
  // counts them all there is no loop, and the common case needs no set of visited spans.
  let count = 0
  const stack = [...starts]
  while (stack.length > 0) {
    count++
    for (const child of children(stack.pop()!.spanId)) stack.push(child)
  }
  if (count === byId.size) return NO_CUTS
  const reached = new Set<Span>()
  const reach = (from: Span) => {
    const pending = [from]
    while (pending.length > 0) {
      const span = pending.pop()!
      if (reached.has(span)) continue
      reached.add(span)
      for (const child of children(span.spanId)) pending.push(child)
    }
  }
  for (const start of starts) reach(start)
  const cut = new Set<Span>()
  for (const span of byId.values()) {
    if (reached.has(span)) continue
    const path = new Set<Span>()
    let at = span
    while (!path.has(at)) {
      path.add(at)
      at = byId.get(at.parentSpanId!)!
    }
    cut.add(at)
    reach(at)
  }
  return cut
}

const NO_CUTS: ReadonlySet<Span> = new Set()

/**
 * Visits every span below `span`, depth first, each once (a cyclic parent chain cannot loop).
 * `visit` returns `stop` to end the walk or `skip` to leave that span's children out. Returns
 * whether the walk was stopped.
 */
export function walkBelow(
  tree: SpanTree,
  span: Span,
  visit: (span: Span) => 'stop' | 'skip' | undefined,
): boolean {
  const seen = new Set<string>([span.spanId])
  const stack = [...tree.children(span.spanId)]
  while (stack.length > 0) {
    const next = stack.pop()!
    if (seen.has(next.spanId)) continue
    seen.add(next.spanId)
    const action = visit(next)
    if (action === 'stop') return true
    if (action !== 'skip') for (const child of tree.children(next.spanId)) stack.push(child)
  }
  return false
}
