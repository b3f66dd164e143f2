import { describe, expect, it } from 'vitest'
import type { Span } from '../model/index.ts'
import { extractAgentRuns } from './index.ts'
import { buildSpanTree } from './span-tree.ts'
import { sid, span } from './testing/span-builder.ts'

/** An agent span that records its own input and output, so it is a run of its own (not a wrapper). */
function agent(id: string, parent: string, start: number): Span {
  return span({
    id,
    parent,
    name: `agent ${id}`,
    start,
    end: start + 100,
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': id,
      'gen_ai.input.messages': JSON.stringify([
        { role: 'user', parts: [{ type: 'text', content: `ask ${id}` }] },
      ]),
      'gen_ai.output.messages': JSON.stringify([
        { role: 'assistant', parts: [{ type: 'text', content: `answer ${id}` }] },
      ]),
    },
  })
}

/** Every span reachable from the roots and orphans, each once. */
function reachable(spans: readonly Span[]): string[] {
  const tree = buildSpanTree(spans)
  const seen: string[] = []
  const stack = [...tree.roots, ...tree.orphans]
  while (stack.length > 0) {
    const next = stack.pop()!
    seen.push(next.spanId)
    stack.push(...tree.children(next.spanId))
  }
  return seen.sort()
}

describe('buildSpanTree', () => {
  it('places each span under its parent, roots and orphans apart', () => {
    const spans = [span({ id: 'a' }), span({ id: 'b', parent: 'a' }), span({ id: 'c', parent: 'gone' })]
    const tree = buildSpanTree(spans)
    expect(tree.roots.map((s) => s.spanId)).toEqual([sid('a')])
    expect(tree.orphans.map((s) => s.spanId)).toEqual([sid('c')])
    expect(tree.children(sid('a')).map((s) => s.spanId)).toEqual([sid('b')])
    expect(tree.parentOf(spans[1]!)).toBe(spans[0])
    expect(tree.parentOf(spans[0]!)).toBeUndefined()
    expect(tree.parentOf(spans[2]!)).toBeUndefined()
  })

  it('cuts a parent cycle at one of its spans, so every span of the loop and below it is reachable', () => {
    // a → b → c → a, with d hanging from c and e from d.
    const spans = [
      span({ id: 'a', parent: 'c', start: 0 }),
      span({ id: 'b', parent: 'a', start: 1 }),
      span({ id: 'c', parent: 'b', start: 2 }),
      span({ id: 'd', parent: 'c', start: 3 }),
      span({ id: 'e', parent: 'd', start: 4 }),
    ]
    const tree = buildSpanTree(spans)
    expect(tree.roots).toHaveLength(1)
    const cut = tree.roots[0]!
    expect(['a', 'b', 'c'].map(sid)).toContain(cut.spanId)
    expect(tree.parentOf(cut)).toBeUndefined()
    expect(reachable(spans)).toEqual(['a', 'b', 'c', 'd', 'e'].map(sid))
  })

  it('cuts every one of many loops, and a 50,000-span loop, without recursion', () => {
    const spans: Span[] = []
    for (let loop = 0; loop < 100; loop++) {
      spans.push(span({ id: `x${loop}`, parent: `y${loop}` }), span({ id: `y${loop}`, parent: `x${loop}` }))
    }
    const n = 50_000
    for (let i = 0; i < n; i++) spans.push(span({ id: `l${i}`, parent: `l${(i + 1) % n}` }))
    const tree = buildSpanTree(spans)
    expect(tree.roots).toHaveLength(101)
    expect(reachable(spans)).toHaveLength(spans.length)
  })
})

describe('agents whose parent ids loop', () => {
  it('are each still a run, one the parent run of the other', () => {
    const runs = extractAgentRuns([agent('p', 'q', 0), agent('q', 'p', 10)])
    expect(runs.map((run) => run.agentName).sort()).toEqual(['p', 'q'])
    const [outer, inner] = runs[0]!.parentRunSpanId ? [runs[1]!, runs[0]!] : [runs[0]!, runs[1]!]
    expect(outer.parentRunSpanId).toBeUndefined()
    expect(inner.parentRunSpanId).toBe(outer.spanId)
  })
})
