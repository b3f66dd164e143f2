import { describe, expect, it } from 'vitest'
import type { Span } from '../../model/index.ts'
import { extractAgentRuns } from '../index.ts'
import { toolInvocations } from '../testing/output-steps.ts'
import { span } from '../testing/span-builder.ts'
import { toolResult } from '../testing/tool-invocations.ts'

const scope = { name: 'strands.telemetry.tracer' }
const strands = (spec: Parameters<typeof span>[0]): Span => ({ ...span(spec), scope })
const blocks = (...texts: unknown[]) => JSON.stringify(texts.map((text) => ({ text })))
const op = (name: string, extra: Record<string, string> = {}) => ({
  'gen_ai.operation.name': name,
  'session.id': 'conv-1',
  ...extra,
})

describe('Strands Agents (GenAI, native)', () => {
  it('default layout: content in span events, tool arguments and results in the tool span’s events, blocks unwrapped', () => {
    const [run] = extractAgentRuns([
      strands({
        id: 'ag',
        end: 100,
        attributes: op('invoke_agent', { 'gen_ai.agent.name': 'support' }),
        events: [
          { name: 'gen_ai.system.message', attributes: { content: blocks('Be brief.') } },
          { name: 'gen_ai.user.message', attributes: { content: blocks('Where is A17?') } },
          { name: 'gen_ai.choice', attributes: { message: 'It has shipped.\n', finish_reason: 'end_turn' } },
        ],
      }),
      strands({ id: 'c1', parent: 'ag', start: 1, end: 50, attributes: op('execute_event_loop_cycle') }),
      strands({
        id: 'm1',
        parent: 'c1',
        start: 2,
        end: 3,
        attributes: op('chat'),
        events: [
          { name: 'gen_ai.user.message', attributes: { content: blocks('Where is A17?') } },
          {
            name: 'gen_ai.choice',
            attributes: {
              message: JSON.stringify([
                { text: 'Looking it up.' },
                { toolUse: { toolUseId: 'call_1', name: 'lookup', input: { orderId: 'A17' } } },
              ]),
            },
          },
        ],
      }),
      strands({
        id: 't1',
        parent: 'c1',
        start: 4,
        end: 5,
        attributes: op('execute_tool', { 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.call.id': 'call_1' }),
        events: [
          {
            name: 'gen_ai.tool.message',
            attributes: { role: 'tool', content: '{"orderId": "A17"}', id: 'call_1' },
          },
          { name: 'gen_ai.choice', attributes: { message: blocks('{"status": "shipped"}'), id: 'call_1' } },
        ],
      }),
      strands({ id: 'c2', parent: 'ag', start: 51, end: 99, attributes: op('execute_event_loop_cycle') }),
      strands({
        id: 'm2',
        parent: 'c2',
        start: 52,
        end: 53,
        attributes: op('chat'),
        events: [{ name: 'gen_ai.choice', attributes: { message: blocks('It has shipped.') } }],
      }),
    ])
    expect(run!.conversationId).toBe('conv-1')
    expect(run!.input.systemMessages).toEqual([{ role: 'system', content: 'Be brief.' }])
    expect(toolInvocations(run!)).toEqual([
      toolResult('call_1', 'lookup', { orderId: 'A17' }, { status: 'shipped' }),
    ])
    // The text written alongside the call stays in its step; the final text has no trailing newline.
    expect(run!.output[0]!.content.parts.map((part) => part.type)).toEqual([
      'text',
      'tool-invocation',
      'step-start',
      'text',
    ])
    expect(run!.output[0]!.content.content).toBe('It has shipped.')
  })

  it('latest layout: content in gen_ai.client.inference.operation.details events, several per span in order', () => {
    const details = (key: string, value: unknown) => ({
      name: 'gen_ai.client.inference.operation.details',
      attributes: { [key]: JSON.stringify(value) },
    })
    const [run] = extractAgentRuns([
      strands({ id: 'ag', end: 100, attributes: op('invoke_agent', { 'gen_ai.agent.name': 'support' }) }),
      strands({
        id: 'm1',
        parent: 'ag',
        start: 2,
        end: 3,
        attributes: op('chat'),
        events: [
          details('gen_ai.system_instructions', [{ type: 'text', content: 'Be brief.' }]),
          details('gen_ai.input.messages', [{ role: 'user', parts: [{ type: 'text', content: 'Hi' }] }]),
          details('gen_ai.output.messages', [
            { role: 'assistant', parts: [{ type: 'text', content: 'Hello!' }] },
          ]),
        ],
      }),
    ])
    expect(run!.input.systemMessages).toEqual([{ role: 'system', content: 'Be brief.' }])
    expect(run!.input.inputMessages.map((m) => m.content.content)).toEqual(['Hi'])
    expect(run!.output[0]!.content.content).toBe('Hello!')
  })
})
