import { describe, expect, it } from 'vitest'
import { parseMessages, parsePromptInput } from './parse-messages.ts'
import { invocationPart, toolError } from './testing/tool-invocations.ts'

describe('parseMessages', () => {
  it('reads GenAI semconv messages, tool calls and both result keys', () => {
    expect(
      parseMessages([
        { role: 'user', parts: [{ type: 'text', content: 'Weather?' }] },
        {
          role: 'assistant',
          parts: [{ type: 'tool_call', id: 'c1', name: 'w', arguments: '{"city":"Paris"}' }],
        },
        { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: 'rain' }] },
        { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c2', result: { t: 14 } }] },
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', content: 'hmm' },
            { type: 'text', content: 'Rain.' },
          ],
        },
      ]),
    ).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
      {
        role: 'assistant',
        parts: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'w', args: { city: 'Paris' } }],
      },
      { role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'c1', result: 'rain' }] },
      { role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'c2', result: { t: 14 } }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'hmm' },
          { type: 'text', text: 'Rain.' },
        ],
      },
    ])
  })

  it('reads AI SDK model messages with wrapped tool outputs, errors included', () => {
    expect(
      parseMessages([
        { role: 'system', content: 'Be brief.' },
        {
          role: 'assistant',
          content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'w', input: { q: 1 } }],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: 'c1',
              toolName: 'w',
              output: { type: 'json', value: { ok: 1 } },
            },
            {
              type: 'tool-result',
              toolCallId: 'c2',
              toolName: 'w',
              output: { type: 'error-text', value: 'boom' },
            },
          ],
        },
        { role: 'user', content: [{ type: 'image', image: 'https://x/y.png', mediaType: 'image/png' }] },
      ]),
    ).toEqual([
      { role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
      { role: 'assistant', parts: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'w', args: { q: 1 } }] },
      {
        role: 'tool',
        parts: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'w', result: { ok: 1 } },
          { type: 'tool-result', toolCallId: 'c2', toolName: 'w', result: 'boom', isError: true },
        ],
      },
      { role: 'user', parts: [{ type: 'file', mimeType: 'image/png', data: 'https://x/y.png' }] },
    ])
  })

  it('reads Mastra stored messages and AI SDK UI messages', () => {
    expect(
      parseMessages([
        {
          role: 'assistant',
          content: {
            format: 2,
            parts: [
              invocationPart(toolError('c1', 'w', {}, 'no')),
              { type: 'step-start' },
              { type: 'text', text: 'Sorry.' },
            ],
            content: 'Sorry.',
          },
        },
        {
          role: 'assistant',
          content: 'mirror, ignored',
          parts: [
            {
              type: 'tool-lookup',
              toolCallId: 'c3',
              input: { id: 1 },
              state: 'output-available',
              output: 'ok',
            },
          ],
        },
      ]),
    ).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'w', args: {} },
          { type: 'tool-result', toolCallId: 'c1', toolName: 'w', result: 'no', isError: true },
          { type: 'text', text: 'Sorry.' },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'tool-call', toolCallId: 'c3', toolName: 'lookup', args: { id: 1 } },
          { type: 'tool-result', toolCallId: 'c3', toolName: 'lookup', result: 'ok' },
        ],
      },
    ])
  })

  it('reads OpenAI chat messages with tool_calls and tool_call_id', () => {
    expect(
      parseMessages([
        { role: 'developer', content: 'Rules.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'w', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{"t":1}' },
      ]),
    ).toEqual([
      { role: 'system', parts: [{ type: 'text', text: 'Rules.' }] },
      { role: 'assistant', parts: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'w', args: {} }] },
      { role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'c1', result: { t: 1 } }] },
    ])
  })

  it('reads untyped Bedrock-style content blocks (Strands)', () => {
    expect(
      parseMessages([
        { role: 'user', content: [{ text: 'Weather?' }] },
        {
          role: 'assistant',
          content: [{ toolUse: { toolUseId: 't1', name: 'w', input: { city: 'Oslo' } } }],
        },
        {
          role: 'user',
          content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'down' }], status: 'error' } }],
        },
        {
          role: 'assistant',
          content: [{ reasoningContent: { reasoningText: { text: 'hmm' } } }, { text: 'Sorry.' }],
        },
      ]),
    ).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
      {
        role: 'assistant',
        parts: [{ type: 'tool-call', toolCallId: 't1', toolName: 'w', args: { city: 'Oslo' } }],
      },
      { role: 'tool', parts: [{ type: 'tool-result', toolCallId: 't1', result: 'down', isError: true }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'hmm' },
          { type: 'text', text: 'Sorry.' },
        ],
      },
    ])
  })

  it('returns undefined for what is not a message list', () => {
    expect(parseMessages('hello')).toBeUndefined()
    expect(parseMessages({ a: 1 })).toBeUndefined()
    expect(parseMessages([{ nope: true }])).toBeUndefined()
    expect(parseMessages([])).toEqual([])
  })
})

describe('parsePromptInput', () => {
  it('reads a plain prompt, AI SDK ai.prompt objects and message lists', () => {
    expect(parsePromptInput('Hi')).toEqual([{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }])
    expect(parsePromptInput({ system: 'S', prompt: 'P' })).toEqual([
      { role: 'system', parts: [{ type: 'text', text: 'S' }] },
      { role: 'user', parts: [{ type: 'text', text: 'P' }] },
    ])
    expect(parsePromptInput({ messages: [{ role: 'user', content: 'M' }] })).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'M' }] },
    ])
    expect(parsePromptInput(['a', 'b'])).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'a' }] },
      { role: 'user', parts: [{ type: 'text', text: 'b' }] },
    ])
    expect(parsePromptInput(42)).toBeUndefined()
  })
})
