import { describe, expect, it } from 'vitest'
import type { Attributes } from '../../model/index.ts'
import { extractAgentRuns, findAgentSpans } from '../index.ts'
import { toolInvocations } from '../testing/output-steps.ts'
import { sid, span } from '../testing/span-builder.ts'
import { toolResult } from '../testing/tool-invocations.ts'

const entity = (kind: string, name: string, input: unknown, output: unknown): Attributes => ({
  'traceloop.span.kind': kind,
  'traceloop.entity.name': name,
  'traceloop.entity.input': JSON.stringify(input),
  'traceloop.entity.output': JSON.stringify(output),
  'traceloop.association.properties.session_id': 'conv-1',
})

/** A legacy OpenLLMetry LLM span: indexed prompt and completion. */
const legacyChat = (id: string, parent: string, start: number, completion: Attributes) =>
  span({
    id,
    parent,
    start,
    end: start + 1,
    name: 'openai.chat',
    attributes: {
      'llm.request.type': 'chat',
      'gen_ai.prompt.0.role': 'system',
      'gen_ai.prompt.0.content': 'Be brief.',
      'gen_ai.prompt.1.role': 'user',
      'gen_ai.prompt.1.content': 'Where is A17?',
      'gen_ai.completion.0.role': 'assistant',
      ...completion,
    },
  })

const agentTrace = () => [
  span({
    id: 'wf',
    end: 100,
    attributes: entity('workflow', 'support-workflow', { args: ['Where is A17?'], kwargs: {} }, 'Shipped.'),
  }),
  span({
    id: 'ag',
    parent: 'wf',
    start: 1,
    end: 99,
    attributes: entity('agent', 'support', { args: ['Where is A17?'], kwargs: {} }, 'Shipped.'),
  }),
  legacyChat('m1', 'ag', 2, {
    'gen_ai.completion.0.tool_calls.0.id': 'call_1',
    'gen_ai.completion.0.tool_calls.0.name': 'lookup',
    'gen_ai.completion.0.tool_calls.0.arguments': '{"orderId": "A17"}',
  }),
  span({
    id: 't1',
    parent: 'ag',
    start: 4,
    end: 5,
    attributes: entity('tool', 'lookup', { args: [], kwargs: { orderId: 'A17' } }, { status: 'shipped' }),
  }),
  legacyChat('m2', 'ag', 6, { 'gen_ai.completion.0.content': 'Shipped.' }),
]

describe('OpenLLMetry / Traceloop', () => {
  it('the agent span is the run; the workflow around it is a wrapper', () => {
    const runs = extractAgentRuns(agentTrace())
    expect(runs.map((run) => [run.spanId, run.convention, run.agentName, run.conversationId])).toEqual([
      [sid('ag'), 'traceloop', 'support', 'conv-1'],
    ])
    const [run] = runs
    expect(run!.input.systemMessages).toEqual([{ role: 'system', content: 'Be brief.' }])
    expect(run!.input.inputMessages.map((m) => m.content.content)).toEqual(['Where is A17?'])
    expect(run!.output[0]!.content.content).toBe('Shipped.')
  })

  it('a tool call joins the indexed completion’s call; its arguments are the call envelope’s kwargs', () => {
    const [run] = extractAgentRuns(agentTrace())
    expect(toolInvocations(run!)).toEqual([
      toolResult('call_1', 'lookup', { orderId: 'A17' }, { status: 'shipped' }),
    ])
  })

  it('a workflow without agent spans that calls a model is the run', () => {
    const spans = agentTrace().filter((s) => s.spanId !== sid('ag'))
    for (const s of spans) if (s.parentSpanId === sid('ag')) s.parentSpanId = sid('wf')
    expect(findAgentSpans(spans).map((s) => s.spanId)).toEqual([sid('wf')])
  })
})

describe('OpenLLMetry LangChain callback wrappers on tool spans', () => {
  /** The tool span OpenLLMetry's LangChain instrumentation writes: callback wrappers in and out. */
  const callbackTool = (inputs?: Record<string, unknown>) =>
    span({
      id: 't1',
      parent: 'ag',
      start: 4,
      end: 5,
      attributes: entity(
        'tool',
        'lookup',
        {
          input_str: "{'orderId': 'A17'}",
          tags: ['seq:step:1'],
          metadata: { thread_id: 'conv-1', langgraph_node: 'tools' },
          ...(inputs ? { inputs } : {}),
          kwargs: { color: 'green', name: null, tool_call_id: 'call_1' },
        },
        {
          output: {
            lc: 1,
            type: 'constructor',
            id: ['langchain', 'schema', 'messages', 'ToolMessage'],
            kwargs: {
              content: '{"status": "shipped"}',
              type: 'tool',
              name: 'lookup',
              tool_call_id: 'call_1',
            },
          },
          kwargs: { tags: ['seq:step:1'], name: 'lookup' },
        },
      ),
    })

  it.each([
    ['with', { orderId: 'A17', extra: 'not what the model sent' }],
    ['without', undefined],
  ])('the arguments are the model’s tool call, not the wrapper (%s its inputs)', (_with, inputs) => {
    const spans = agentTrace().map((s) => (s.spanId === sid('t1') ? callbackTool(inputs) : s))
    const [run] = extractAgentRuns(spans)
    expect(toolInvocations(run!)).toEqual([
      toolResult('call_1', 'lookup', { orderId: 'A17' }, { status: 'shipped' }),
    ])
  })

  it('the returned ToolMessage gives the call id and the value', () => {
    const spans = agentTrace().map((s) => (s.spanId === sid('t1') ? callbackTool() : s))
    // The model's call has another id: the span joins it by the id the ToolMessage names, or not at all.
    const renamed = spans.map((s) =>
      s.spanId === sid('m1')
        ? { ...s, attributes: { ...s.attributes, 'gen_ai.completion.0.tool_calls.0.id': 'call_other' } }
        : s,
    )
    const [run] = extractAgentRuns(renamed)
    expect(toolInvocations(run!).map((call) => call.toolCallId)).toEqual(['call_other', 'call_1'])
  })
})
