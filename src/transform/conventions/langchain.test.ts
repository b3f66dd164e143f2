import { describe, expect, it } from 'vitest'
import { type Attributes, type Span, StatusCode } from '../../model/index.ts'
import { extractAgentRuns } from '../index.ts'
import { toolInvocations } from '../testing/output-steps.ts'
import { sid, span } from '../testing/span-builder.ts'
import { toolResult } from '../testing/tool-invocations.ts'

const scope = { name: 'openinference.instrumentation.langchain', version: '0.1.80' }

/** A span as openinference-instrumentation-langchain writes it. */
function lc(spec: Parameters<typeof span>[0] & { kind: string }): Span {
  const { kind, attributes = {}, ...rest } = spec
  return { ...span({ ...rest, attributes: { 'openinference.span.kind': kind, ...attributes } }), scope }
}

const envelope = (type: string, content: string, extra: Record<string, unknown> = {}) => ({
  type,
  data: { content, ...extra },
})

/** A ChatOpenAI LLM span asking for one call, or answering. */
function chat(id: string, parent: string, start: number, output: Attributes): Span {
  return lc({
    id,
    parent,
    start,
    end: start + 1,
    name: 'ChatOpenAI',
    kind: 'LLM',
    attributes: {
      'llm.input_messages.0.message.role': 'system',
      'llm.input_messages.0.message.content': 'Be helpful.',
      'llm.input_messages.1.message.role': 'user',
      'llm.input_messages.1.message.content': 'Where is A17?',
      'llm.output_messages.0.message.role': 'assistant',
      ...output,
    },
  })
}

const asksLookup = {
  'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_1',
  'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'lookup_order',
  'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"orderId": "A17"}',
}

/** A `create_react_agent` graph: the graph span, `agent` nodes (AGENT), a `tools` node and the tool. */
function reactAgent(root: { id: string; parent?: string; name: string; start: number }): Span[] {
  const at = (offset: number) => root.start + offset
  const p = (id: string) => `${root.id}${id}`
  return [
    lc({
      id: root.id,
      ...(root.parent ? { parent: root.parent } : {}),
      name: root.name,
      kind: 'CHAIN',
      start: at(0),
      end: at(50),
      attributes: {
        'input.value': JSON.stringify({ messages: [{ role: 'user', content: 'Where is A17?' }] }),
        'output.value': JSON.stringify({
          messages: [envelope('human', 'Where is A17?'), envelope('ai', 'A17 has shipped.')],
        }),
        'session.id': 'thread-1',
      },
    }),
    lc({ id: p('n1'), parent: root.id, name: 'agent', kind: 'AGENT', start: at(1), end: at(10) }),
    chat(p('m1'), p('n1'), at(2), asksLookup),
    lc({ id: p('tn'), parent: root.id, name: 'tools', kind: 'CHAIN', start: at(11), end: at(20) }),
    lc({
      id: p('t1'),
      parent: p('tn'),
      name: 'lookup_order',
      kind: 'TOOL',
      start: at(12),
      end: at(13),
      attributes: {
        'tool.name': 'lookup_order',
        'input.value': 'A17',
        'output.value': JSON.stringify(
          envelope('tool', '{"status": "shipped"}', { tool_call_id: 'call_1', status: 'success' }),
        ),
      },
    }),
    lc({ id: p('n2'), parent: root.id, name: 'agent', kind: 'AGENT', start: at(21), end: at(30) }),
    chat(p('m2'), p('n2'), at(22), { 'llm.output_messages.0.message.content': 'A17 has shipped.' }),
  ]
}

describe('LangChain / LangGraph (OpenInference)', () => {
  it('one run per graph invocation, not one per node: the outermost chain is the run', () => {
    const runs = extractAgentRuns(reactAgent({ id: 'g', name: 'support-agent', start: 0 }))
    expect(runs.map((run) => [run.spanId, run.agentName, run.conversationId])).toEqual([
      [sid('g'), 'support-agent', 'thread-1'],
    ])
    expect(runs[0]!.input.inputMessages.map((m) => m.content.content)).toEqual(['Where is A17?'])
    expect(runs[0]!.output[0]!.content.content).toBe('A17 has shipped.')
  })

  it('a one-argument tool gets its named argument, and its ToolMessage envelope is unwrapped', () => {
    const [run] = extractAgentRuns(reactAgent({ id: 'g', name: 'support-agent', start: 0 }))
    expect(toolInvocations(run!)).toEqual([
      toolResult('call_1', 'lookup_order', { orderId: 'A17' }, { status: 'shipped' }),
    ])
  })

  it('a graph under an application span is still one run', () => {
    const spans = [
      span({ id: 'http', name: 'POST /chat', end: 100 }),
      ...reactAgent({ id: 'g', parent: 'http', name: 'bot', start: 1 }),
    ]
    expect(extractAgentRuns(spans).map((run) => run.agentName)).toEqual(['bot'])
  })

  it('a sub-graph invoked from a tool is a run of its own and a tool invocation of its caller', () => {
    const spans = reactAgent({ id: 'g', name: 'supervisor', start: 0 })
    // The sub-graph runs inside the supervisor's tool span.
    spans.push(...reactAgent({ id: 's', parent: 'gt1', name: 'researcher', start: 12 }))
    const runs = extractAgentRuns(spans)
    expect(runs.map((run) => [run.agentName, run.parentRunSpanId])).toEqual([
      ['supervisor', undefined],
      ['researcher', sid('g')],
    ])
    expect(toolInvocations(runs[0]!).map((call) => call.toolCallId)).toEqual(['call_1'])
    expect(toolInvocations(runs[1]!).map((call) => call.toolCallId)).toEqual(['call_1'])
  })

  it('a failed tool reads its exception message, not the repr and traceback in the status', () => {
    const spans = reactAgent({ id: 'g', name: 'support-agent', start: 0 }).map(
      (s): Span =>
        s.spanId === sid('gt1')
          ? {
              ...s,
              status: {
                code: StatusCode.ERROR,
                message: "ValueError('Order A17 not found')Traceback (most recent call last): ...",
              },
              events: [
                {
                  name: 'exception',
                  timeUnixNano: s.startTimeUnixNano,
                  attributes: { 'exception.message': 'Order A17 not found' },
                },
              ],
            }
          : s,
    )
    const [run] = extractAgentRuns(spans)
    expect(toolInvocations(run!)[0]).toMatchObject({
      state: 'output-error',
      errorText: 'Order A17 not found',
    })
  })

  it('reads LangChain message envelopes as the input (history first)', () => {
    const spans = reactAgent({ id: 'g', name: 'support-agent', start: 0 })
    spans[0] = {
      ...spans[0]!,
      attributes: {
        ...spans[0]!.attributes,
        'input.value': JSON.stringify({
          messages: [
            envelope('human', 'Hi'),
            envelope('ai', 'Hello', { tool_calls: [] }),
            {
              lc: 1,
              type: 'constructor',
              id: ['langchain', 'schema', 'messages', 'HumanMessage'],
              kwargs: { content: 'Where is A17?' },
            },
          ],
        }),
      },
    }
    const [run] = extractAgentRuns(spans)
    expect(run!.input.rememberedMessages.map((m) => [m.role, m.content.content])).toEqual([
      ['user', 'Hi'],
      ['assistant', 'Hello'],
    ])
    expect(run!.input.inputMessages.map((m) => m.content.content)).toEqual(['Where is A17?'])
  })
})

describe('LangChain.js / LangGraph.js (@arizeai/openinference-instrumentation-langchain)', () => {
  const jsScope = { name: '@arizeai/openinference-instrumentation-langchain', version: '4.1.1' }
  const js = (spec: Parameters<typeof lc>[0]): Span => ({ ...lc(spec), scope: jsScope })
  /** LangChain.js's `lc` serialization of a message. */
  const lcMessage = (className: string, kwargs: Record<string, unknown>) => ({
    lc: 1,
    type: 'constructor',
    id: ['langchain_core', 'messages', className],
    kwargs,
  })
  const human = lcMessage('HumanMessage', { content: 'Where is A17?' })
  const call = lcMessage('AIMessage', {
    content: '',
    tool_calls: [{ name: 'lookup', args: { id: 'A17' }, id: 'call_1', type: 'tool_call' }],
  })
  const result = lcMessage('ToolMessage', {
    content: '{"status":"shipped"}',
    tool_call_id: 'call_1',
    name: 'lookup',
  })
  /** A model span whose flattened messages carry no call ids (as LangChain.js writes them). */
  const model = (id: string, start: number, input: unknown[], output: unknown, flattened: Attributes) =>
    js({
      id,
      parent: 'graph',
      start,
      end: start + 1,
      name: 'ChatOpenAI',
      kind: 'LLM',
      attributes: {
        'input.value': JSON.stringify({
          messages: [[lcMessage('SystemMessage', { content: 'Be brief.' }), ...input]],
        }),
        'input.mime_type': 'application/json',
        'output.value': JSON.stringify({ generations: [[{ text: '', message: output }]] }),
        'output.mime_type': 'application/json',
        'llm.input_messages.0.message.role': 'system',
        'llm.input_messages.0.message.content': 'Be brief.',
        'llm.input_messages.1.message.role': 'user',
        'llm.input_messages.1.message.content': 'Where is A17?',
        'llm.output_messages.0.message.role': 'assistant',
        ...flattened,
      },
    })
  const trace = (tool: Span): Span[] => [
    js({
      id: 'graph',
      name: 'support',
      kind: 'CHAIN',
      end: 100,
      attributes: {
        'input.value': JSON.stringify({ messages: [human] }),
        'input.mime_type': 'application/json',
      },
    }),
    model('m1', 1, [human], call, {
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'lookup',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"id":"A17"}',
    }),
    tool,
    model('m2', 10, [human, call, result], lcMessage('AIMessage', { content: 'Shipped.' }), {
      'llm.input_messages.2.message.role': 'assistant',
      'llm.input_messages.2.message.tool_calls.0.tool_call.function.name': 'lookup',
      'llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments': '{"id":"A17"}',
      'llm.input_messages.3.message.role': 'tool',
      'llm.input_messages.3.message.content': '{"status":"shipped"}',
      'llm.output_messages.0.message.content': 'Shipped.',
    }),
  ]
  const toolSpan = (attributes: Attributes, error?: string) =>
    js({ id: 't1', parent: 'graph', start: 5, end: 6, name: 'lookup', kind: 'TOOL', attributes, error })

  it('reads the ToolMessage the tool span returns ({output: {lc, kwargs}}) as its call id and result', () => {
    const [run] = extractAgentRuns(
      trace(
        toolSpan({
          'tool.name': 'lookup',
          'input.value': 'A17',
          'output.value': JSON.stringify({ output: result }),
          'output.mime_type': 'application/json',
        }),
      ),
    )
    expect(toolInvocations(run!)).toEqual([
      {
        state: 'result',
        toolCallId: 'call_1',
        toolName: 'lookup',
        args: { id: 'A17' },
        result: { status: 'shipped' },
      },
    ])
  })

  it('takes call ids from the serialized messages when the flattened ones have none (tool spans lost)', () => {
    const [run] = extractAgentRuns(trace(toolSpan({})).filter((s) => s.spanId !== sid('t1')))
    expect(toolInvocations(run!)).toEqual([
      {
        state: 'result',
        toolCallId: 'call_1',
        toolName: 'lookup',
        args: { id: 'A17' },
        result: { status: 'shipped' },
      },
    ])
  })

  it('a tool error is the status message before the stack', () => {
    const [run] = extractAgentRuns(
      trace(
        toolSpan(
          { 'tool.name': 'lookup' },
          'Order A17 not found\n\nError: Order A17 not found\n    at run (x.ts:1:1)',
        ),
      ),
    )
    expect(toolInvocations(run!)[0]).toMatchObject({
      state: 'output-error',
      errorText: 'Order A17 not found',
    })
  })
})

describe('LangChain.js: a system prompt flattened as its role alone', () => {
  it('is read from the model call’s input.value', () => {
    const scope = { name: '@arizeai/openinference-instrumentation-langchain', version: '4.1.1' }
    const system = { lc: 1, type: 'constructor', id: ['langchain_core', 'messages', 'SystemMessage'] }
    const spans = [
      { ...lc({ id: 'graph', name: 'support', kind: 'CHAIN', end: 100 }), scope },
      {
        ...lc({
          id: 'm1',
          parent: 'graph',
          start: 1,
          end: 2,
          kind: 'LLM',
          attributes: {
            'input.value': JSON.stringify({
              messages: [
                [
                  { ...system, kwargs: { content: [{ type: 'text', text: 'Be brief.' }] } },
                  {
                    ...system,
                    id: ['langchain_core', 'messages', 'HumanMessage'],
                    kwargs: { content: 'Hi' },
                  },
                ],
              ],
            }),
            'input.mime_type': 'application/json',
            'llm.input_messages.0.message.role': 'system',
            'llm.input_messages.1.message.role': 'user',
            'llm.input_messages.1.message.content': 'Hi',
            'llm.output_messages.0.message.role': 'assistant',
            'llm.output_messages.0.message.content': 'Hello!',
          },
        }),
        scope,
      },
    ]
    const [run] = extractAgentRuns(spans)
    expect(run!.input.systemMessages).toEqual([{ role: 'system', content: 'Be brief.' }])
    expect(run!.output[0]!.content.content).toBe('Hello!')
  })
})
