import { describe, expect, it } from 'vitest'
import { extractAgentRuns } from '../index.ts'
import { sid, span } from '../testing/span-builder.ts'
import { invocationPart, toolError, toolResult } from '../testing/tool-invocations.ts'

const history = [
  { role: 'user', parts: [{ type: 'text', content: 'Hi' }] },
  { role: 'assistant', parts: [{ type: 'text', content: 'Hello! How can I help?' }] },
  { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris and Rome?' }] },
]

/** An AI SDK 7 (`@ai-sdk/otel`) shaped run: root → step → chat + execute_tool, two steps. */
function aiSdk7Trace() {
  return [
    span({
      id: 'a1',
      name: 'invoke_agent weather',
      start: 0,
      end: 100,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'weather',
        'gen_ai.conversation.id': 'conv-1',
        'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'You are a weather bot.' }]),
        'gen_ai.input.messages': JSON.stringify(history),
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: 'Paris is sunny.' }], finish_reason: 'stop' },
        ]),
        'user.id': 'u-7',
      },
    }),
    span({
      id: 's1',
      parent: 'a1',
      name: 'step 1',
      start: 1,
      end: 50,
      attributes: { 'gen_ai.operation.name': 'agent_step' },
    }),
    span({
      id: 'c1',
      parent: 's1',
      name: 'chat gpt-x',
      start: 2,
      end: 20,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': JSON.stringify(history),
        'gen_ai.output.messages': JSON.stringify([
          {
            role: 'assistant',
            parts: [
              { type: 'tool_call', id: 'call_1', name: 'weather', arguments: { city: 'Paris' } },
              { type: 'tool_call', id: 'call_2', name: 'weather', arguments: { city: 'Rome' } },
            ],
            finish_reason: 'tool_call',
          },
        ]),
      },
    }),
    span({
      id: 't1',
      parent: 's1',
      name: 'execute_tool weather',
      start: 21,
      end: 30,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'weather',
        'gen_ai.tool.call.id': 'call_1',
        'gen_ai.tool.call.arguments': JSON.stringify({ city: 'Paris' }),
        'gen_ai.tool.call.result': JSON.stringify({ sky: 'sunny' }),
      },
    }),
    span({
      id: 't2',
      parent: 's1',
      name: 'execute_tool weather',
      start: 22,
      end: 31,
      error: 'Rome is offline',
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'weather',
        'gen_ai.tool.call.id': 'call_2',
        'gen_ai.tool.call.arguments': JSON.stringify({ city: 'Rome' }),
      },
    }),
    span({
      id: 's2',
      parent: 'a1',
      name: 'step 2',
      start: 51,
      end: 99,
      attributes: { 'gen_ai.operation.name': 'agent_step' },
    }),
    span({
      id: 'c2',
      parent: 's2',
      name: 'chat gpt-x',
      start: 52,
      end: 98,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: 'Paris is sunny.' }], finish_reason: 'stop' },
        ]),
      },
    }),
  ]
}

describe('extractAgentRuns on GenAI semconv spans', () => {
  it('finds one run with identity, conversation and request context', () => {
    const runs = extractAgentRuns(aiSdk7Trace())
    expect(runs).toHaveLength(1)
    const run = runs[0]!
    expect(run.spanId).toBe(sid('a1'))
    expect(run).toMatchObject({
      convention: 'genai',
      agentName: 'weather',
      conversationId: 'conv-1',
      status: 'ok',
    })
    expect(run.requestContext).toEqual({ serviceName: 'test-service', userId: 'u-7' })
    expect(run.parentRunSpanId).toBeUndefined()
  })

  it('splits instructions, this turn and history', () => {
    const { input } = extractAgentRuns(aiSdk7Trace())[0]!
    expect(input.systemMessages).toEqual([{ role: 'system', content: 'You are a weather bot.' }])
    expect(input.inputMessages.map((m) => [m.role, m.content.content])).toEqual([
      ['user', 'Weather in Paris and Rome?'],
    ])
    expect(input.rememberedMessages.map((m) => [m.role, m.content.content])).toEqual([
      ['user', 'Hi'],
      ['assistant', 'Hello! How can I help?'],
    ])
    expect(input.taggedSystemMessages).toEqual({})
  })

  it('puts every tool call, then the final text, into one assistant message, steps marked as Mastra does', () => {
    const [message] = extractAgentRuns(aiSdk7Trace())[0]!.output
    expect(message!.role).toBe('assistant')
    expect(message!.content.parts).toEqual([
      invocationPart(toolResult('call_1', 'weather', { city: 'Paris' }, { sky: 'sunny' })),
      invocationPart(toolError('call_2', 'weather', { city: 'Rome' }, 'Rome is offline')),
      { type: 'step-start' },
      { type: 'text', text: 'Paris is sunny.' },
    ])
    expect(message!.content.content).toBe('Paris is sunny.')
    // Mastra's legacy mirror has no state for a failed call, so only call_1 is mirrored.
    expect(message!.content.toolInvocations?.map((t) => t.toolCallId)).toEqual(['call_1'])
  })

  it('gives messages the MastraDBMessage shape', () => {
    const run = extractAgentRuns(aiSdk7Trace())[0]!
    for (const message of [...run.input.inputMessages, ...run.input.rememberedMessages, ...run.output]) {
      expect(typeof message.id).toBe('string')
      expect(message.id.length).toBeGreaterThan(0)
      expect(message.createdAt).toBeInstanceOf(Date)
      expect(message.content.format).toBe(2)
      expect(Array.isArray(message.content.parts)).toBe(true)
      expect(message.threadId).toBe('conv-1')
      expect(message.resourceId).toBe('u-7')
    }
    const times = [...run.input.rememberedMessages, ...run.input.inputMessages, ...run.output].map((m) =>
      m.createdAt.getTime(),
    )
    expect([...times].sort((a, b) => a - b)).toEqual(times)
    const ids = new Set(
      [...run.input.inputMessages, ...run.input.rememberedMessages, ...run.output].map((m) => m.id),
    )
    expect(ids.size).toBe(4)
  })

  it('marks a failed agent span as an error run', () => {
    const spans = aiSdk7Trace()
    spans[0] = { ...spans[0]!, status: { code: 2, message: 'model overloaded' } }
    const run = extractAgentRuns(spans)[0]!
    expect(run.status).toBe('error')
    expect(run.notes).toContain('agent run failed: model overloaded')
  })

  it('keeps a run ok when its ERROR status only echoes a tool failure the loop went on from', () => {
    const spans = aiSdk7Trace()
    spans[0] = { ...spans[0]!, status: { code: 2, message: 'Rome is offline' } }
    const run = extractAgentRuns(spans)[0]!
    expect(run.status).toBe('ok')
    expect(run.output[0]!.content.content).toBe('Paris is sunny.')
    expect(run.notes).toContain(
      'agent span status ERROR (Rome is offline) comes from tool call call_2, which the run went on from',
    )
  })

  it('fails a run whose tool error ended the loop', () => {
    const spans = aiSdk7Trace().filter((s) => s.spanId !== sid('c2') && s.spanId !== sid('s2'))
    spans[0] = { ...spans[0]!, status: { code: 2, message: 'Rome is offline' } }
    expect(extractAgentRuns(spans)[0]!.status).toBe('error')
  })

  it('reads structured (non-string) message attributes', () => {
    const spans = aiSdk7Trace()
    spans[0] = {
      ...spans[0]!,
      attributes: { ...spans[0]!.attributes, 'gen_ai.input.messages': history as never },
    }
    const run = extractAgentRuns(spans)[0]!
    expect(run.input.inputMessages[0]!.content.content).toBe('Weather in Paris and Rome?')
  })

  it('reads the older per-message events', () => {
    const spans = [
      span({
        id: 'a1',
        name: 'invoke_agent',
        end: 50,
        attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'old' },
      }),
      span({
        id: 'c1',
        parent: 'a1',
        name: 'chat gpt-4',
        start: 1,
        end: 40,
        attributes: { 'gen_ai.system': 'openai' },
        events: [
          { name: 'gen_ai.system.message', attributes: { content: 'Be brief.' } },
          { name: 'gen_ai.user.message', attributes: { content: 'What is 2+2?' } },
          {
            name: 'gen_ai.choice',
            attributes: { index: 0, finish_reason: 'stop', message: JSON.stringify({ content: 'Four.' }) },
          },
        ],
      }),
    ]
    const run = extractAgentRuns(spans)[0]!
    expect(run.input.systemMessages).toEqual([{ role: 'system', content: 'Be brief.' }])
    expect(run.input.inputMessages[0]!.content.content).toBe('What is 2+2?')
    expect(run.output[0]!.content.content).toBe('Four.')
  })

  it('takes the tool calls a remote agent reports on its own span when it has no model-call spans', () => {
    const runs = extractAgentRuns([
      span({
        id: 'r1',
        name: 'invoke_agent assistant',
        end: 30,
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.input.messages': JSON.stringify([
            { role: 'user', parts: [{ type: 'text', content: 'Search A17' }] },
          ]),
          'gen_ai.output.messages': JSON.stringify([
            {
              role: 'assistant',
              parts: [
                { type: 'tool_call', id: 'fs_1', name: 'file_search', arguments: { q: 'A17' } },
                { type: 'tool_call_response', id: 'fs_1', response: ['doc-3'] },
                { type: 'text', content: 'Found doc-3.' },
              ],
              finish_reason: 'stop',
            },
          ]),
        },
      }),
    ])
    expect(runs[0]!.output[0]!.content.parts).toEqual([
      invocationPart(toolResult('fs_1', 'file_search', { q: 'A17' }, ['doc-3'])),
      { type: 'text', text: 'Found doc-3.' },
    ])
  })
})
