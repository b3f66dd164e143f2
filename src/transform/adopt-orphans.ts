import type { Span } from '../model/index.ts'
import { isAgentRunSpan } from './agent-spans.ts'
import { compareNanos, type SpanTree } from './span-tree.ts'

/**
 * Spans whose parent is missing cannot be placed by id; each is given to the innermost agent
 * run whose time window contains its start, so its tool and model calls are not lost.
 */
export function adoptOrphans(tree: SpanTree, agents: readonly Span[]): Map<string, Span[]> {
  const adopted = new Map<string, Span[]>()
  for (const orphan of tree.orphans) {
    if (isAgentRunSpan(orphan)) continue
    let owner: Span | undefined
    for (const agent of agents) {
      const inside =
        compareNanos(agent.startTimeUnixNano, orphan.startTimeUnixNano) <= 0 &&
        compareNanos(orphan.startTimeUnixNano, agent.endTimeUnixNano) <= 0
      if (inside && (!owner || compareNanos(owner.startTimeUnixNano, agent.startTimeUnixNano) <= 0))
        owner = agent
    }
    if (!owner) continue
    const list = adopted.get(owner.spanId)
    if (list) list.push(orphan)
    else adopted.set(owner.spanId, [orphan])
  }
  return adopted
}
