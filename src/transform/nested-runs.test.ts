import { describe, expect, it } from 'vitest'
import { extractAgentRuns } from './index.ts'
import { sid, span } from './testing/span-builder.ts'

const agent = (name: string) => ({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': name })
const step = { 'gen_ai.operation.name': 'agent_step' }
const tool = (name: string, id: string, result: string) => ({
  'gen_ai.operation.name': 'execute_tool',
  'gen_ai.tool.name': name,
  'gen_ai.tool.call.id': id,
  'gen_ai.tool.call.arguments': '{}',
  'gen_ai.tool.call.result': result,
})

describe('nested and sequential agent runs', () => {
  // supervisor ─ step ─ execute_tool ask ─ invoke_agent researcher ─ step ─ execute_tool search
  //            └ workflow span ─ invoke_agent writer (called directly, not through a tool)
  const spans = [
    span({ id: 'sup', start: 0, end: 100, attributes: agent('supervisor') }),
    span({ id: 'st', parent: 'sup', start: 1, end: 60, attributes: step }),
    span({ id: 'ask', parent: 'st', start: 2, end: 50, attributes: tool('ask', 'c-ask', '"30 days"') }),
    span({ id: 'res', parent: 'ask', start: 3, end: 49, attributes: agent('researcher') }),
    span({ id: 'rst', parent: 'res', start: 4, end: 48, attributes: step }),
    span({ id: 'srch', parent: 'rst', start: 5, end: 6, attributes: tool('search', 'c-search', '["doc"]') }),
    span({ id: 'wf', parent: 'sup', start: 61, end: 99, name: 'workflow', attributes: { custom: 'x' } }),
    span({ id: 'wri', parent: 'wf', start: 62, end: 98, attributes: agent('writer') }),
    span({ id: 'wt', parent: 'wri', start: 63, end: 64, attributes: tool('draft', 'c-draft', '"ok"') }),
  ]

  it('gives each agent its own run with its own tools only', () => {
    const runs = extractAgentRuns(spans)
    const tools = (name: string) =>
      runs
        .find((run) => run.agentName === name)!
        .output[0]!.content.parts.flatMap((p) =>
          p.type === 'tool-invocation' ? [p.toolInvocation.toolName] : [],
        )
    expect(runs.map((run) => run.agentName)).toEqual(['supervisor', 'researcher', 'writer'])
    expect(tools('supervisor')).toEqual(['ask'])
    expect(tools('researcher')).toEqual(['search'])
    expect(tools('writer')).toEqual(['draft'])
  })

  it('links nested runs to the run that encloses them, through tool and other spans', () => {
    const runs = extractAgentRuns(spans)
    expect(runs.map((run) => run.parentRunSpanId)).toEqual([undefined, sid('sup'), sid('sup')])
  })

  it('finds sequential turns of one trace as separate top-level runs', () => {
    const runs = extractAgentRuns([
      span({ id: 'root', start: 0, end: 300, name: 'POST /chat', attributes: { 'http.route': '/chat' } }),
      span({ id: 't1', parent: 'root', start: 1, end: 100, attributes: agent('bot') }),
      span({ id: 't2', parent: 'root', start: 101, end: 200, attributes: agent('bot') }),
    ])
    expect(runs.map((run) => [run.spanId, run.parentRunSpanId])).toEqual([
      [sid('t1'), undefined],
      [sid('t2'), undefined],
    ])
  })
})
