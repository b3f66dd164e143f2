import { describe, expect, it } from 'vitest'
import type { ChatMessage } from './chat-message.ts'
import { buildOutputMessage, toMastraMessages } from './message-builder.ts'
import { invocationPart, toolError, toolResult } from './testing/tool-invocations.ts'
import type { ToolCallRecord } from './tool-calls.ts'

const at = (index: number) => new Date(1_000 + index)

describe('toMastraMessages', () => {
  it('folds tool results into the assistant message that made the call, as Mastra stores history', () => {
    const history: ChatMessage[] = [
      { role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'w', args: { city: 'Paris' } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'w', args: { city: 'Oslo' } },
        ],
      },
      {
        role: 'tool',
        parts: [
          { type: 'tool-result', toolCallId: 'c1', result: 'rain' },
          { type: 'tool-result', toolCallId: 'c2', result: 'down', isError: true },
        ],
      },
      { role: 'assistant', parts: [{ type: 'text', text: 'Rain in Paris.' }] },
    ]
    const messages = toMastraMessages(history, { idPrefix: 'h', createdAt: at, context: { threadId: 't1' } })
    expect(messages.map((m) => [m.id, m.role, m.threadId, m.createdAt.getTime()])).toEqual([
      ['h-0', 'user', 't1', 1000],
      ['h-1', 'assistant', 't1', 1001],
      ['h-2', 'assistant', 't1', 1002],
    ])
    expect(messages[1]!.content).toEqual({
      format: 2,
      parts: [
        { type: 'text', text: 'Checking.' },
        invocationPart(toolResult('c1', 'w', { city: 'Paris' }, 'rain')),
        invocationPart(toolError('c2', 'w', { city: 'Oslo' }, 'down')),
      ],
      content: 'Checking.',
      toolInvocations: [toolResult('c1', 'w', { city: 'Paris' }, 'rain')],
    })
  })

  it('keeps a tool result whose call is unknown on the previous assistant message', () => {
    const messages = toMastraMessages(
      [
        { role: 'assistant', parts: [{ type: 'text', text: 'a' }] },
        { role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'x', toolName: 'w', result: 1 }] },
      ],
      { idPrefix: 'h', createdAt: at, context: {} },
    )
    expect(messages).toHaveLength(1)
    expect(messages[0]!.content.parts[1]).toEqual(invocationPart(toolResult('x', 'w', {}, 1)))
  })

  it('joins user text parts with newlines in the content mirror, and keeps the last for assistants', () => {
    const [user, assistant] = toMastraMessages(
      [
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
        {
          role: 'assistant',
          parts: [
            { type: 'text', text: 'x' },
            { type: 'text', text: 'y' },
          ],
        },
      ],
      { idPrefix: 'h', createdAt: at, context: {} },
    )
    expect(user!.content.content).toBe('a\nb')
    expect(assistant!.content.content).toBe('y')
  })
})

describe('buildOutputMessage', () => {
  const call = (id: string, step: number, extra: Partial<ToolCallRecord> = {}): ToolCallRecord => ({
    toolCallId: id,
    toolName: 't',
    args: {},
    state: 'result',
    result: id,
    timeUnixNano: '0',
    sequence: 0,
    step,
    ...extra,
  })

  it('marks each new step with a step-start part, tools first, final text last', () => {
    const message = buildOutputMessage({
      toolCalls: [call('a', 0), call('b', 0), call('c', 1, { state: 'call', result: undefined })],
      finalText: 'done',
      finalStep: 2,
      id: 'o',
      createdAt: at(0),
      context: {},
    })
    expect(
      message.content.parts.map((p) => (p.type === 'tool-invocation' ? p.toolInvocation.toolCallId : p.type)),
    ).toEqual(['a', 'b', 'step-start', 'c', 'step-start', 'text'])
    expect(message.content.content).toBe('done')
    expect(message.content.toolInvocations?.map((t) => t.state)).toEqual(['result', 'result', 'call'])
  })

  it('gives an empty content mirror and no parts when nothing was recorded', () => {
    const message = buildOutputMessage({
      toolCalls: [],
      finalText: '',
      finalStep: undefined,
      id: 'o',
      createdAt: at(0),
      context: {},
    })
    expect(message.content).toEqual({ format: 2, parts: [], content: '' })
  })
})
