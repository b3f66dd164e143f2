import { describe, expect, it } from 'vitest'
import { type Attributes, type Span, StatusCode } from '../../model/index.ts'
import { extractAgentRuns } from '../index.ts'
import { toolInvocations } from '../testing/output-steps.ts'
import { sid, span } from '../testing/span-builder.ts'
import { toolResult } from '../testing/tool-invocations.ts'

const scope = { name: 'gcp.vertex.agent' }
const adk = (spec: Parameters<typeof span>[0]): Span => ({ ...span(spec), scope })
const text = (role: string, content: string, finish = '') => ({
  role,
  parts: [{ type: 'text', content }],
  finish_reason: finish,
})

function model(id: string, parent: string, start: number, instruction: string, output: unknown[]): Span {
  const attributes: Attributes = {
    'gen_ai.operation.name': 'generate_content',
    'gen_ai.system_instructions': JSON.stringify([
      {
        type: 'text',
        content: `${instruction}\n\nYou are an agent. Your internal name is "x". The description about you is "y".`,
      },
    ]),
    'gen_ai.input.messages': JSON.stringify([text('user', 'Refund A17')]),
    'gen_ai.output.messages': JSON.stringify(output),
  }
  return adk({ id, parent, start, end: start + 1, attributes })
}

const agent = (id: string, name: string, start: number, end: number) =>
  adk({
    id,
    parent: 'wf',
    start,
    end,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': name },
  })

const transfer = {
  role: 'assistant',
  parts: [
    { type: 'tool_call', id: 'call_t', name: 'transfer_to_agent', arguments: { agent_name: 'billing' } },
  ],
  finish_reason: 'stop',
}

describe('Google ADK (GenAI, native)', () => {
  const trace = () => [
    adk({
      id: 'wf',
      end: 100,
      attributes: { 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.conversation.id': 'conv-1' },
    }),
    agent('tri', 'triage', 1, 20),
    model('m1', 'tri', 2, 'Route.', [transfer]),
    adk({
      id: 't1',
      parent: 'tri',
      start: 4,
      end: 5,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'transfer_to_agent',
        'gen_ai.tool.call.id': 'call_t',
        'gen_ai.tool.call.arguments': '{"agent_name": "billing"}',
        'gen_ai.tool.call.result': '{"result": null}',
      },
    }),
    agent('bil', 'billing', 21, 90),
    // A streamed call: partial responses first, then the complete one with its finish reason.
    model('m2', 'bil', 22, 'Bill.', [
      text('assistant', 'Refun'),
      text('assistant', 'ded.'),
      text('assistant', 'Refunded.', 'stop'),
    ]),
  ]

  it('a transfer chain under one invoke_workflow is one run with the program’s instruction', () => {
    const runs = extractAgentRuns(trace())
    expect(runs.map((run) => [run.spanId, run.agentName])).toEqual([[sid('tri'), 'triage']])
    expect(runs[0]!.input.systemMessages).toEqual([{ role: 'system', content: 'Route.' }])
    expect(toolInvocations(runs[0]!)).toEqual([
      toolResult('call_t', 'transfer_to_agent', { agent_name: 'billing' }, { result: null }),
    ])
    expect(runs[0]!.output[0]!.content.content).toBe('Refunded.')
  })

  it('a failed tool reads the error callback’s message, not the TOOL_ERROR status', () => {
    const spans = trace().map(
      (s): Span =>
        s.spanId === sid('t1')
          ? {
              ...s,
              status: { code: StatusCode.ERROR, message: 'TOOL_ERROR' },
              attributes: { ...s.attributes, 'gen_ai.tool.call.result': '{"error": "no such agent"}' },
            }
          : s,
    )
    expect(toolInvocations(extractAgentRuns(spans)[0]!)[0]).toMatchObject({
      state: 'output-error',
      errorText: 'no such agent',
    })
  })
})
