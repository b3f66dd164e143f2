import { describe, expect, it } from 'vitest'
import { extractAgentRuns } from '../index.ts'
import { span } from '../testing/span-builder.ts'
import { invocationPart, toolError, toolResult } from '../testing/tool-invocations.ts'

const base = {
  'ai.telemetry.functionId': 'support',
  'ai.telemetry.metadata.userId': 'u1',
  'ai.telemetry.metadata.threadId': 't9',
  'ai.telemetry.metadata.empty': '',
}

/** AI SDK 6 layout: `ai.toolCall` spans are children of the root, beside the model calls. */
function aiSdk6Trace(options: { withToolSpans?: boolean } = {}) {
  const { withToolSpans = true } = options
  const prompt = [
    { role: 'system', content: 'Be helpful.' },
    { role: 'user', content: [{ type: 'text', text: 'Where is A17?' }] },
  ]
  return [
    span({
      id: 'r',
      name: 'ai.generateText',
      end: 100,
      attributes: {
        ...base,
        'ai.operationId': 'ai.generateText',
        'ai.prompt': JSON.stringify({ system: 'Be helpful.', prompt: 'Where is A17?' }),
        'ai.response.text': 'It shipped.',
      },
    }),
    span({
      id: 'g1',
      parent: 'r',
      name: 'ai.generateText.doGenerate',
      start: 1,
      end: 10,
      attributes: {
        ...base,
        'ai.operationId': 'ai.generateText.doGenerate',
        'ai.prompt.messages': JSON.stringify(prompt),
        'ai.response.toolCalls': JSON.stringify([
          { toolCallId: 'c1', toolName: 'lookup', input: '{"id":"A17"}' },
          { toolCallId: 'c2', toolName: 'web_search', input: { q: 'A17' } },
        ]),
      },
    }),
    ...(withToolSpans
      ? [
          span({
            id: 't1',
            parent: 'r',
            name: 'ai.toolCall',
            start: 11,
            end: 12,
            attributes: {
              ...base,
              'ai.operationId': 'ai.toolCall',
              'ai.toolCall.name': 'lookup',
              'ai.toolCall.id': 'c1',
              'ai.toolCall.args': '{"id":"A17"}',
              'ai.toolCall.result': '{"status":"shipped"}',
            },
          }),
        ]
      : []),
    span({
      id: 'g2',
      parent: 'r',
      name: 'ai.generateText.doGenerate',
      start: 13,
      end: 20,
      attributes: {
        ...base,
        'ai.operationId': 'ai.generateText.doGenerate',
        'ai.prompt.messages': JSON.stringify([
          ...prompt,
          {
            role: 'assistant',
            content: [
              { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { id: 'A17' } },
              { type: 'tool-call', toolCallId: 'c2', toolName: 'web_search', input: { q: 'A17' } },
            ],
          },
          {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: 'c1',
                toolName: 'lookup',
                output: { type: 'json', value: { status: 'shipped' } },
              },
              {
                type: 'tool-result',
                toolCallId: 'c2',
                toolName: 'web_search',
                output: { type: 'error-text', value: 'quota' },
              },
            ],
          },
        ]),
        'ai.response.text': 'It shipped.',
      },
    }),
  ]
}

describe('extractAgentRuns on AI SDK ≤6 spans', () => {
  it('reads the prompt, metadata and final text', () => {
    const [run] = extractAgentRuns(aiSdk6Trace())
    expect(run).toMatchObject({
      convention: 'ai-sdk',
      agentName: 'support',
      agentId: 'support',
      conversationId: 't9',
    })
    expect(run!.requestContext).toEqual({ userId: 'u1', threadId: 't9', serviceName: 'test-service' })
    expect(run!.input.systemMessages).toEqual([{ role: 'system', content: 'Be helpful.' }])
    expect(run!.input.inputMessages.map((m) => m.content.content)).toEqual(['Where is A17?'])
    expect(run!.output[0]!.content.content).toBe('It shipped.')
  })

  it('joins tool spans with calls and results from the model messages', () => {
    const [run] = extractAgentRuns(aiSdk6Trace())
    expect(run!.output[0]!.content.parts).toEqual([
      invocationPart(toolResult('c1', 'lookup', { id: 'A17' }, { status: 'shipped' })),
      invocationPart(toolError('c2', 'web_search', { q: 'A17' }, 'quota')),
      { type: 'step-start' },
      { type: 'text', text: 'It shipped.' },
    ])
  })

  it('rebuilds tool calls from model messages alone when tool spans are missing', () => {
    const [run] = extractAgentRuns(aiSdk6Trace({ withToolSpans: false }))
    const calls = run!.output[0]!.content.parts.flatMap((p) =>
      p.type === 'tool-invocation' ? [p.toolInvocation] : [],
    )
    expect(calls.map((c) => [c.toolCallId, c.state])).toEqual([
      ['c1', 'result'],
      ['c2', 'output-error'],
    ])
    expect(calls[0]!.result).toEqual({ status: 'shipped' })
  })
})
