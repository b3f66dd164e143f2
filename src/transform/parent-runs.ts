import type { Span } from '../model/index.ts'
import type { SpanTree } from './span-tree.ts'

/**
 * The nearest enclosing run of each run span (by span id), for the runs whose ancestors are all
 * present; `runOf` names the run of each span that heads one (a handoff chain's later agents
 * belong to the chain's run). One pass over the ancestors: every span's answer is remembered, so agents deep under
 * a long chain of plain spans share one walk of the chain instead of one walk each.
 */
export function parentRuns(
  tree: SpanTree,
  runs: readonly Span[],
  runOf: ReadonlyMap<string, Span>,
): Map<string, Span> {
  // The nearest run at or above a span; null when the chain reaches a root, a missing span or a cycle.
  const runAtOrAbove = new Map<string, Span | null>()
  const resolve = (startId: string | undefined): Span | null => {
    const path: string[] = []
    const onPath = new Set<string>()
    let id = startId
    let found: Span | null = null
    while (id) {
      const known = runAtOrAbove.get(id)
      if (known !== undefined) {
        found = known
        break
      }
      const span = tree.byId.get(id)
      if (!span || onPath.has(id)) break
      const owner = runOf.get(id)
      if (owner) {
        found = owner
        break
      }
      path.push(id)
      onPath.add(id)
      id = span.parentSpanId
    }
    for (const visited of path) runAtOrAbove.set(visited, found)
    return found
  }
  const parents = new Map<string, Span>()
  for (const run of runs) {
    const parent = resolve(run.parentSpanId)
    // A parent chain that loops back to the run itself names no parent.
    if (parent && parent !== run) parents.set(run.spanId, parent)
  }
  return parents
}
