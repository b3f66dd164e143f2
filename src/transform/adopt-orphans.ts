import type { Span } from '../model/index.ts'
import { isAgentRunSpan } from './agent-spans.ts'
import { byStart, compareNanos, type SpanTree } from './span-tree.ts'

/**
 * Spans whose parent is missing cannot be placed by id; each is given to the innermost agent
 * run whose time window contains its start (the latest-starting one), so its tool and model
 * calls are not lost. `agents` are sorted by start.
 *
 * One sweep in time order: agents are pushed as they start, and an agent found finished is
 * popped for good (later orphans start later still), so the top of the stack is always the
 * latest-starting agent that may still hold the next orphan.
 */
export function adoptOrphans(tree: SpanTree, agents: readonly Span[]): Map<string, Span[]> {
  const orphans = tree.orphans.filter((orphan) => !isAgentRunSpan(orphan))
  const owners = new Map<Span, Span>()
  const open: Span[] = []
  let next = 0
  for (const orphan of [...orphans].sort(byStart)) {
    const time = orphan.startTimeUnixNano
    while (next < agents.length && compareNanos(agents[next]!.startTimeUnixNano, time) <= 0) {
      open.push(agents[next++]!)
    }
    while (open.length > 0 && compareNanos(time, open[open.length - 1]!.endTimeUnixNano) > 0) open.pop()
    const owner = open[open.length - 1]
    if (owner) owners.set(orphan, owner)
  }
  const adopted = new Map<string, Span[]>()
  for (const orphan of orphans) {
    const owner = owners.get(orphan)
    if (!owner) continue
    const list = adopted.get(owner.spanId)
    if (list) list.push(orphan)
    else adopted.set(owner.spanId, [orphan])
  }
  return adopted
}
