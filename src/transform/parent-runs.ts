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
  // The nearest run at or above a span; null when the chain reaches a root or a missing span.
  const runAtOrAbove = new Map<Span, Span | null>()
  const resolve = (start: Span | undefined): Span | null => {
    const path: Span[] = []
    let span = start
    let found: Span | null = null
    while (span) {
      const known = runAtOrAbove.get(span)
      if (known !== undefined) {
        found = known
        break
      }
      const owner = runOf.get(span.spanId)
      if (owner) {
        found = owner
        break
      }
      path.push(span)
      span = tree.parentOf(span)
    }
    for (const visited of path) runAtOrAbove.set(visited, found)
    return found
  }
  const parents = new Map<string, Span>()
  for (const run of runs) {
    const parent = resolve(tree.parentOf(run))
    if (parent && parent !== run) parents.set(run.spanId, parent)
  }
  return parents
}
