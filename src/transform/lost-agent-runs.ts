import { type Span, StatusCode } from '../model/index.ts'
import type { ConventionReader } from './conventions/convention-reader.ts'
import { readerFor, spanRole } from './detect-convention.ts'
import { byStart, compareNanos, type SpanTree, walkBelow } from './span-tree.ts'

/** A run whose agent span never arrived: a stand-in span for it, and the spans it left behind. */
interface LostAgentRun {
  /** Stands for the missing agent span: its id, the window and outcome of its children. */
  agent: Span
  /** The spans whose parent it was, heads of the subtrees the run is rebuilt from. */
  roots: Span[]
  reader: ConventionReader
}

/**
 * Runs whose agent span is missing (an instrumentation that never ends the span when the agent
 * raises, an exporter that dropped it): agent-loop steps whose parent is not in the trace, that
 * no run took in by time and that hold a model call, grouped by that missing parent. A step only
 * exists inside an agent's loop, so the missing parent was the agent; dropping the steps would
 * lose the run. A bare model call under a missing parent is not enough: that parent is as often
 * another service's span.
 */
export function lostAgentRuns(tree: SpanTree, adopted: ReadonlySet<Span>): LostAgentRun[] {
  const groups = new Map<string, Span[]>()
  for (const orphan of tree.orphans) {
    if (adopted.has(orphan) || spanRole(orphan) !== 'step' || !holdsModelCall(tree, orphan)) continue
    const parentId = orphan.parentSpanId!
    const group = groups.get(parentId)
    if (group) group.push(orphan)
    else groups.set(parentId, [orphan])
  }
  const runs: LostAgentRun[] = []
  for (const [parentId, roots] of groups) {
    roots.sort(byStart)
    const reader = roots.map(readerFor).find((candidate) => candidate !== undefined)
    if (reader) runs.push({ agent: standIn(parentId, roots), roots, reader })
  }
  return runs
}

function holdsModelCall(tree: SpanTree, span: Span): boolean {
  return walkBelow(tree, span, (next) => (spanRole(next) === 'model' ? 'stop' : undefined))
}

/** A span standing for the missing parent: the window of its children, failed when the last one failed. */
function standIn(spanId: string, roots: readonly Span[]): Span {
  const first = roots[0]!
  let last = first
  for (const root of roots) if (compareNanos(root.endTimeUnixNano, last.endTimeUnixNano) > 0) last = root
  const failed = last.status.code === StatusCode.ERROR
  return {
    traceId: first.traceId,
    spanId,
    name: '(missing agent span)',
    kind: 0,
    startTimeUnixNano: first.startTimeUnixNano,
    endTimeUnixNano: last.endTimeUnixNano,
    attributes: {},
    events: [],
    links: [],
    status: failed
      ? { code: StatusCode.ERROR, ...(last.status.message ? { message: last.status.message } : {}) }
      : { code: StatusCode.OK },
    resource: first.resource,
    scope: first.scope,
  }
}
