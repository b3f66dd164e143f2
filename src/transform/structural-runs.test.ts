import { describe, expect, it } from 'vitest'
import { extractAgentRuns } from './index.ts'
import { toolCalls } from './testing/fixture-runs.ts'
import { sid, span } from './testing/span-builder.ts'

/** A span of a framework that speaks GenAI but names neither agent nor content (Spring AI's chat client). */
const framework = { 'gen_ai.operation.name': 'framework' }
const chat = { 'gen_ai.operation.name': 'chat' }
const tool = (name: string) => ({ 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name })

describe('runs of model calls whose prompts were not recorded', () => {
  it('are the outermost known-vocabulary span above them, one per tool call that started an agent', () => {
    const runs = extractAgentRuns([
      span({ id: 'r', name: 'client', end: 100, attributes: framework }),
      span({ id: 'a', parent: 'r', name: 'advisor', start: 1, end: 99, attributes: framework }),
      span({ id: 'c1', parent: 'a', name: 'chat', start: 2, end: 5, attributes: chat }),
      span({ id: 't', parent: 'a', name: 'execute_tool ask', start: 6, end: 50, attributes: tool('ask') }),
      span({ id: 'r2', parent: 't', name: 'client', start: 7, end: 49, attributes: framework }),
      span({ id: 'c2', parent: 'r2', name: 'chat', start: 8, end: 40, attributes: chat }),
      span({ id: 'c3', parent: 'a', name: 'chat', start: 60, end: 70, attributes: chat }),
    ])
    expect(runs.map((run) => [run.spanId, run.parentRunSpanId])).toEqual([
      [sid('r'), undefined],
      [sid('r2'), sid('r')],
    ])
    expect(runs[0]!.notes).toContain('input messages not recorded (content capture off?)')
  })

  it('make no run of a lone call, nor of a request span of no known vocabulary around one', () => {
    expect(extractAgentRuns([span({ id: 'c1', name: 'chat', attributes: chat })])).toEqual([])
    expect(
      extractAgentRuns([
        span({ id: 'h', name: 'GET /x', end: 100, attributes: { 'http.method': 'GET' } }),
        span({ id: 'c1', parent: 'h', name: 'chat', start: 1, end: 5, attributes: chat }),
      ]),
    ).toEqual([])
  })
})

describe('a conversation of its own inside a run’s tool call', () => {
  const messages = (role: string, text: string) =>
    JSON.stringify([{ role, parts: [{ type: 'text', content: text }] }])
  const model = (agent: string | undefined, system: string, input: string, output: string) => ({
    'gen_ai.operation.name': 'chat',
    ...(agent ? { 'gen_ai.agent.name': agent } : {}),
    'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: system }]),
    'gen_ai.input.messages': messages('user', input),
    'gen_ai.output.messages': output,
  })
  const askTool = JSON.stringify([
    {
      role: 'assistant',
      parts: [{ type: 'tool_call', id: 'call_1', name: 'ask', arguments: { question: 'Q' } }],
      finish_reason: 'tool_call',
    },
  ])
  /** A supervisor whose tool `ask` runs `inside` (spans under the tool call), then answers. */
  const trace = (inside: ReturnType<typeof span>[]) => [
    span({
      id: 's',
      name: 'invoke_agent',
      end: 100,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'supervisor' },
    }),
    span({
      id: 'c1',
      parent: 's',
      name: 'chat',
      start: 1,
      end: 5,
      attributes: model('supervisor', 'Coordinate.', 'Q', askTool),
    }),
    span({
      id: 't',
      parent: 's',
      name: 'execute_tool',
      start: 6,
      end: 50,
      attributes: { ...tool('ask'), 'gen_ai.tool.call.id': 'call_1', 'gen_ai.tool.call.result': 'A' },
    }),
    ...inside,
    span({
      id: 'c2',
      parent: 's',
      name: 'chat',
      start: 60,
      end: 70,
      attributes: model('supervisor', 'Coordinate.', 'Q', messages('assistant', 'Final')),
    }),
  ]

  /** One model call under the tool call, answering 'A'. */
  const toolCallsModel = (agent: string | undefined, system: string) =>
    span({
      id: 'r1',
      parent: 't',
      name: 'chat',
      start: 7,
      end: 20,
      attributes: model(agent, system, 'Q', messages('assistant', 'A')),
    })

  it('is the run of the agent the tool runs, named by its model calls, when no span names that agent', () => {
    const runs = extractAgentRuns(trace([toolCallsModel('researcher', 'Research.')]))
    expect(runs.map((run) => [run.spanId, run.parentRunSpanId, run.agentName])).toEqual([
      [sid('s'), undefined, 'supervisor'],
      [sid('t'), sid('s'), 'researcher'],
    ])
    expect(runs[0]!.output[0]!.content.content).toBe('Final')
    expect(runs[1]!.output[0]!.content.content).toBe('A')
    expect(runs[1]!.input.systemMessages).toEqual([{ role: 'system', content: 'Research.' }])
  })

  it('is no run when the tool asks a model once and nothing names an agent (a tool that uses a model)', () => {
    const runs = extractAgentRuns(trace([toolCallsModel(undefined, 'Summarise.')]))
    expect(runs.map((run) => run.spanId)).toEqual([sid('s')])
    expect(runs[0]!.output[0]!.content.parts.some((part) => part.type === 'tool-invocation')).toBe(true)
  })
})

describe('turn spans named with the bare invoke_agent operation', () => {
  const op = (name: string, more: Record<string, string> = {}) => ({ 'gen_ai.operation.name': name, ...more })
  const text = (role: string, content: string) => ({ role, parts: [{ type: 'text', content }] })
  const asked = {
    role: 'assistant',
    parts: [{ type: 'tool_call', id: 'c1', name: 'lookup', arguments: { id: 'A1' } }],
  }
  const answered = { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: 'shipped' }] }
  const model = (id: string, parent: string, start: number, input: object[], output: object[]) =>
    span({
      id,
      parent,
      name: 'chat',
      start,
      end: start + 3,
      attributes: op('chat', {
        'gen_ai.input.messages': JSON.stringify(input),
        'gen_ai.output.messages': JSON.stringify(output),
      }),
    })
  const trace = (secondPrompt: object[]) => [
    span({ id: 'a', name: 'Agent.run', end: 100, attributes: { agent_name: 'support' } }),
    span({ id: 't1', parent: 'a', name: 'invoke_agent', start: 1, end: 20, attributes: op('invoke_agent') }),
    model('m1', 't1', 2, [text('system', 'Be brief.'), text('user', 'Where is A1?')], [asked]),
    span({
      id: 'x',
      parent: 't1',
      name: 'execute_tool lookup',
      start: 10,
      end: 12,
      attributes: op('execute_tool', {
        'gen_ai.tool.name': 'lookup',
        'gen_ai.tool.call.id': 'c1',
        'gen_ai.tool.call.result': 'shipped',
      }),
    }),
    span({ id: 't2', parent: 'a', name: 'invoke_agent', start: 30, end: 50, attributes: op('invoke_agent') }),
    model('m2', 't2', 31, secondPrompt, [text('assistant', 'It shipped.')]),
  ]

  it('are turns of one run, headed by the span above them that holds the conversation', () => {
    const runs = extractAgentRuns(
      trace([text('system', 'Be brief.'), text('user', 'Where is A1?'), asked, answered]),
    )
    expect(runs.map((run) => [run.spanId, run.agentName])).toEqual([[sid('a'), 'support']])
    expect(runs[0]!.output[0]!.content.content).toBe('It shipped.')
  })

  it('stay runs of their own when the later one was asked something new', () => {
    const runs = extractAgentRuns(
      trace([
        text('system', 'Be brief.'),
        text('user', 'Where is A1?'),
        text('assistant', 'It shipped.'),
        text('user', 'And A2?'),
      ]),
    )
    expect(runs.map((run) => run.spanId)).toEqual([sid('t1'), sid('t2')])
  })
})

describe("a framework's pseudo-tool recorded as an agent span", () => {
  const oi = (kind: string, more: Record<string, string> = {}) => ({
    'openinference.span.kind': kind,
    ...more,
  })

  it('is no run but the tool call the model made, with the answer it holds as its result', () => {
    const runs = extractAgentRuns([
      span({
        id: 'a',
        name: 'CodeAgent.run',
        end: 100,
        attributes: oi('AGENT', { 'input.value': 'Hours?', 'output.value': '9 to 5' }),
      }),
      span({
        id: 'l1',
        parent: 'a',
        start: 1,
        end: 4,
        attributes: oi('LLM', {
          'llm.input_messages.0.message.role': 'system',
          'llm.input_messages.0.message.content': 'Be brief.',
          'llm.input_messages.1.message.role': 'user',
          'llm.input_messages.1.message.content': 'Hours?',
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_1',
          'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'final_answer',
          'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"answer":"9 to 5"}',
        }),
      }),
      span({
        id: 'f',
        parent: 'a',
        name: 'FinalAnswerTool',
        start: 10,
        end: 11,
        attributes: oi('AGENT', { 'output.value': '9 to 5' }),
      }),
    ])
    expect(runs.map((run) => run.spanId)).toEqual([sid('a')])
    expect(toolCalls(runs[0]!)).toEqual([
      { id: 'call_1', name: 'final_answer', args: { answer: '9 to 5' }, result: '9 to 5' },
    ])
    expect(runs[0]!.notes ?? []).not.toContainEqual(expect.stringContaining('not recorded'))
  })
})
