import { describe, expect, it } from 'vitest'
import type { Attributes, Span } from '../../model/index.ts'
import { extractAgentRuns } from '../index.ts'
import { toolInvocations } from '../testing/output-steps.ts'
import { sid, span } from '../testing/span-builder.ts'

const scope = { name: 'opentelemetry.instrumentation.langchain', version: '0.62.4' }

function ll(spec: Parameters<typeof span>[0]): Span {
  return { ...span(spec), scope }
}

/** `invoke_agent <graph>`: the span OpenLLMetry opens around a LangGraph invocation. */
const graph = (id: string, parent: string | undefined, name: string, start: number, end: number) =>
  ll({
    id,
    parent,
    start,
    end,
    name: `invoke_agent ${name}`,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': name },
  })

/** A LangChain callback span (`workflow` for a root chain, `task` for a chain inside another). */
const chain = (id: string, parent: string, kind: string, name: string, start: number, end: number) =>
  ll({
    id,
    parent,
    start,
    end,
    name: kind === 'workflow' ? `${name}.workflow` : `execute_task ${name}`,
    attributes: { 'traceloop.span.kind': kind, 'traceloop.entity.name': name },
  })

const chat = (id: string, parent: string, start: number, prompt: string, output: Attributes) =>
  ll({
    id,
    parent,
    start,
    end: start + 1,
    name: 'ChatOpenAI.chat',
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: prompt }] }]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', ...output }]),
    },
  })

const tool = (id: string, parent: string, start: number, end: number, name: string, result: unknown) =>
  ll({
    id,
    parent,
    start,
    end,
    name: `execute_tool ${name}`,
    attributes: {
      'traceloop.span.kind': 'tool',
      'traceloop.entity.name': name,
      'traceloop.entity.output': JSON.stringify(result),
    },
  })

/** A supervisor graph whose tool invokes a researcher graph (`nested-agents`, as recorded). */
function nested(): Span[] {
  return [
    graph('g1', undefined, 'supervisor', 0, 100),
    chain('wf', 'g1', 'workflow', 'supervisor', 1, 99),
    chat('m1', 'wf', 2, 'Policy?', {
      parts: [
        { type: 'tool_call', id: 'call_s1', name: 'ask_researcher', arguments: { question: 'Policy?' } },
      ],
    }),
    tool('t1', 'wf', 4, 40, 'ask_researcher', { answer: '30 days.' }),
    // The sub-graph's span stays empty; its chain hangs under the tool span beside it.
    graph('g2', 't1', 'researcher', 5, 38),
    chain('sub', 't1', 'task', 'researcher', 6, 37),
    chat('m2', 'sub', 7, 'Policy?', {
      parts: [{ type: 'tool_call', id: 'call_r1', name: 'search_docs', arguments: { query: 'policy' } }],
    }),
    tool('t2', 'sub', 9, 10, 'search_docs', { hits: ['30 days'] }),
    chat('m3', 'sub', 11, 'Policy?', { parts: [{ type: 'text', content: '30 days.' }] }),
    chat('m4', 'wf', 41, 'Policy?', { parts: [{ type: 'text', content: 'Within 30 days.' }] }),
  ]
}

describe('OpenLLMetry LangChain (LangGraph)', () => {
  it('a graph run from a tool is a run of its own: the empty graph span continued by the chain beside it', () => {
    const runs = extractAgentRuns(nested())
    expect(runs.map((run) => [run.spanId, run.agentName, run.convention, run.parentRunSpanId])).toEqual([
      [sid('wf'), 'supervisor', 'traceloop', undefined],
      [sid('g2'), 'researcher', 'traceloop', sid('wf')],
    ])
    const [supervisor, researcher] = runs
    expect(toolInvocations(supervisor!).map((call) => call.toolCallId)).toEqual(['call_s1'])
    expect(toolInvocations(researcher!).map((call) => call.toolCallId)).toEqual(['call_r1'])
    expect(researcher!.output[0]!.content.content).toBe('30 days.')
  })

  it('an empty graph span with no chain beside it is a run with nothing in it', () => {
    const spans = nested().filter((s) => s.spanId !== sid('sub') && s.parentSpanId !== sid('sub'))
    const runs = extractAgentRuns(spans)
    expect(runs.map((run) => run.spanId)).toEqual([sid('wf'), sid('g2')])
    expect(toolInvocations(runs[1]!)).toEqual([])
  })
})
