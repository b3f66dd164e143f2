import type { Span } from '../model/index.ts'
import { isAgentRunSpan } from './agent-spans.ts'
import { compareNanos, type SpanTree } from './span-tree.ts'

/**
 * Spans whose parent is missing cannot be placed by id; each is given to the innermost agent
 * run whose time window contains its start (the latest-starting one), so its tool and model
 * calls are not lost. `agents` are sorted by start.
 */
export function adoptOrphans(tree: SpanTree, agents: readonly Span[]): Map<string, Span[]> {
  const adopted = new Map<string, Span[]>()
  for (const orphan of tree.orphans) {
    if (isAgentRunSpan(orphan)) continue
    const owner = innermostContaining(agents, orphan.startTimeUnixNano)
    if (!owner) continue
    const list = adopted.get(owner.spanId)
    if (list) list.push(orphan)
    else adopted.set(owner.spanId, [orphan])
  }
  return adopted
}

/** The latest-starting agent whose window holds `time`: a binary search, then back to the first still open. */
function innermostContaining(agents: readonly Span[], time: string): Span | undefined {
  let low = 0
  let high = agents.length
  while (low < high) {
    const middle = (low + high) >> 1
    if (compareNanos(agents[middle]!.startTimeUnixNano, time) <= 0) low = middle + 1
    else high = middle
  }
  for (let index = low - 1; index >= 0; index--) {
    const agent = agents[index]!
    if (compareNanos(time, agent.endTimeUnixNano) <= 0) return agent
  }
  return undefined
}
