import { describe, expect, it } from 'vitest'
import { type Attributes, type Span, StatusCode } from '../../model/index.ts'
import { extractAgentRuns } from '../index.ts'
import { toolInvocations } from '../testing/output-steps.ts'
import { sid, span } from '../testing/span-builder.ts'
import { toolResult } from '../testing/tool-invocations.ts'

const scope = { name: 'openinference.instrumentation.smolagents', version: '0.1.43' }
const smol = (spec: Parameters<typeof span>[0] & { kind: string }): Span => {
  const { kind, attributes = {}, ...rest } = spec
  return {
    ...span({
      ...rest,
      attributes: { 'openinference.span.kind': kind, 'session.id': 'conv-1', ...attributes },
    }),
    scope,
  }
}

const TEMPLATE = (instructions: string) =>
  `You are an expert assistant...\n- lookup: Looks up.\n    Takes inputs: {'id': {'type': 'string'}}\n    Returns an output of type: any\n${instructions}\n\nHere are the rules you should always follow to solve your task:\n1. ...`

/** The messages of an LLM span, flattened as OpenInference writes them: `[role, text]` pairs. */
function messages(prefix: string, list: [string, string][]): Attributes {
  const out: Attributes = {}
  list.forEach(([role, text], index) => {
    out[`${prefix}.${index}.message.role`] = role
    out[`${prefix}.${index}.message.contents.0.message_content.text`] = text
  })
  return out
}

const call = (id: string, name: string, args: string): Attributes => ({
  'llm.output_messages.0.message.role': 'assistant',
  'llm.output_messages.0.message.tool_calls.0.tool_call.id': id,
  'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': name,
  'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': args,
})

describe('smolagents (OpenInference)', () => {
  const history: [string, string][] = [
    ['system', TEMPLATE('Be brief.')],
    ['user', 'New task:\nHi'],
    [
      'tool-call',
      "Calling tools:\n[{'id': 'h1', 'type': 'function', 'function': {'name': 'final_answer', 'arguments': {'answer': 'Hello!'}}}]",
    ],
    ['tool-response', 'Observation:\nHello!'],
    ['user', 'New task:\nWhere is A17?'],
  ]
  const trace = () => [
    smol({
      id: 'run',
      name: 'support.run',
      kind: 'AGENT',
      end: 100,
      attributes: { 'input.value': '{"task": "Where is A17?", "stream": false}', 'output.value': 'Shipped.' },
    }),
    smol({ id: 's1', parent: 'run', name: 'Step 1', kind: 'CHAIN', start: 1, end: 40 }),
    smol({
      id: 'm1',
      parent: 's1',
      name: 'OpenAIModel.generate',
      kind: 'LLM',
      start: 2,
      end: 3,
      attributes: { ...messages('llm.input_messages', history), ...call('c1', 'lookup', '{"id": "A17"}') },
    }),
    smol({
      id: 't1',
      parent: 's1',
      name: 'SimpleTool',
      kind: 'TOOL',
      start: 4,
      end: 5,
      attributes: {
        'tool.name': 'lookup',
        'input.value': '{"args": [], "sanitize_inputs_outputs": true, "kwargs": {"id": "A17"}}',
        'output.value': '{"status": "shipped"}',
      },
    }),
    smol({ id: 's2', parent: 'run', name: 'Step 2', kind: 'CHAIN', start: 41, end: 80 }),
    smol({
      id: 'm2',
      parent: 's2',
      name: 'OpenAIModel.generate',
      kind: 'LLM',
      start: 42,
      end: 43,
      attributes: call('c2', 'final_answer', '{"answer": "Shipped."}'),
    }),
    smol({
      id: 'fa',
      parent: 's2',
      name: 'FinalAnswerTool',
      kind: 'TOOL',
      start: 44,
      end: 45,
      attributes: { 'tool.name': 'final_answer', 'output.value': 'Shipped.' },
    }),
  ]

  it('unwraps the task, the instructions and the replayed memory; final_answer is the answer, not a tool call', () => {
    const [run] = extractAgentRuns(trace())
    expect(run!.agentName).toBe('support')
    expect(run!.input.systemMessages).toEqual([{ role: 'system', content: 'Be brief.' }])
    expect(run!.input.rememberedMessages.map((m) => [m.role, m.content.content])).toEqual([
      ['user', 'Hi'],
      ['assistant', 'Hello!'],
    ])
    expect(run!.input.inputMessages.map((m) => m.content.content)).toEqual(['Where is A17?'])
    expect(toolInvocations(run!)).toEqual([toolResult('c1', 'lookup', { id: 'A17' }, { status: 'shipped' })])
    expect(run!.output[0]!.content.content).toBe('Shipped.')
  })

  it('a run whose .run span was never exported is rebuilt from its steps, and says so', () => {
    const spans = trace()
      .filter((s) => s.spanId !== sid('run') && s.spanId !== sid('s2') && s.parentSpanId !== sid('s2'))
      .map((s) =>
        s.spanId === sid('s1')
          ? { ...s, status: { code: StatusCode.ERROR, message: 'AgentGenerationError' } }
          : s,
      )
    const [run] = extractAgentRuns(spans)
    expect(run).toMatchObject({ spanId: sid('run'), status: 'error', conversationId: 'conv-1' })
    expect(run!.input.inputMessages.map((m) => m.content.content)).toEqual(['Where is A17?'])
    expect(run!.notes).toContain(
      `agent span ${sid('run')} is missing; the run is rebuilt from the 1 span(s) under it`,
    )
  })

  it('a model call under a missing parent that is no agent step is not a run (another service’s span)', () => {
    const spans = trace()
      .filter((s) => s.spanId === sid('m1'))
      .map((s) => ({ ...s, parentSpanId: sid('gone') }))
    expect(extractAgentRuns(spans)).toEqual([])
  })
})
