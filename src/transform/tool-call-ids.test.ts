/**
 * Model answers recorded the way some tracing SDKs record them: the chat completion's message alone
 * (`choices[0].message`), a streamed answer's tool call rebuilt without its id, and one rebuilt
 * without the call at all (only the next prompt shows it).
 */
import { describe, expect, it } from 'vitest'
import { extractAgentRuns } from './index.ts'
import { responseMessages } from './provider-wire.ts'
import { toolCalls } from './testing/fixture-runs.ts'
import { outputSteps } from './testing/output-steps.ts'
import { appModelSpan, span } from './testing/span-builder.ts'

describe('a chat completion message alone as the answer', () => {
  it('is read with its text and tool calls', () => {
    expect(
      responseMessages({
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"id":"A1"}' } },
        ],
      }),
    ).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'lookup', args: { id: 'A1' } }],
      },
    ])
    expect(responseMessages({ role: 'assistant', content: 'Done.' })).toEqual([
      { role: 'assistant', parts: [{ type: 'text', text: 'Done.' }] },
    ])
    expect(responseMessages({ role: 'user', content: 'Hi' })).toBeUndefined()
  })
})

describe('a tool call recorded without its id', () => {
  const system = { role: 'system', content: 'Help.' }
  const user = { role: 'user', content: 'Weather in Paris?' }
  const call = (id?: string) => ({
    ...(id ? { id } : {}),
    type: 'function',
    function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
  })

  it('takes the id the next prompt gives it, and with it the result', () => {
    const runs = extractAgentRuns([
      span({
        id: 'a',
        name: 'weather',
        end: 100,
        attributes: { 'span.type': 'agent', 'app.input': 'Weather in Paris?' },
      }),
      // Streamed: the rebuilt answer has the call but not its id.
      appModelSpan('c1', 1, [system, user], { role: 'assistant', content: null, tool_calls: [call()] }),
      appModelSpan(
        'c2',
        20,
        [
          system,
          user,
          { role: 'assistant', tool_calls: [call('call_1')] },
          { role: 'tool', tool_call_id: 'call_1', content: 'rain' },
        ],
        {
          role: 'assistant',
          content: 'It rains.',
        },
      ),
    ])
    expect(runs).toHaveLength(1)
    expect(toolCalls(runs[0]!)).toEqual([
      { id: 'call_1', name: 'get_weather', args: { city: 'Paris' }, result: 'rain' },
    ])
    expect(runs[0]!.notes ?? []).not.toContainEqual(expect.stringContaining('not recorded'))
  })
})

describe('a tool call only the next prompt shows', () => {
  const system = { role: 'system', content: 'Help.' }
  const user = { role: 'user', content: 'Weather in Paris?' }
  const call = (id: string, city = 'Paris') => ({
    id,
    type: 'function',
    function: { name: 'get_weather', arguments: JSON.stringify({ city }) },
  })
  const agent = span({
    id: 'a',
    name: 'weather',
    end: 100,
    attributes: { 'span.type': 'agent', 'app.input': 'Weather in Paris?' },
  })
  // A streamed answer rebuilt without its tool call (MLflow: `tool_calls: null`).
  const lost = { role: 'assistant', content: '', tool_calls: null }

  it('is the call of the model call before that prompt, with the result the prompt gives', () => {
    const runs = extractAgentRuns([
      agent,
      appModelSpan('c1', 1, [system, user], lost),
      appModelSpan(
        'c2',
        20,
        [
          system,
          user,
          { role: 'assistant', content: null, tool_calls: [call('call_1')] },
          { role: 'tool', tool_call_id: 'call_1', content: 'rain' },
        ],
        { role: 'assistant', content: 'It rains.' },
      ),
    ])
    expect(toolCalls(runs[0]!)).toEqual([
      { id: 'call_1', name: 'get_weather', args: { city: 'Paris' }, result: 'rain' },
    ])
    expect(outputSteps(runs[0]!)).toEqual([
      { texts: [], toolCallIds: ['call_1'] },
      { texts: ['It rains.'], toolCallIds: [] },
    ])
    expect(runs[0]!.notes ?? []).not.toContainEqual(expect.stringContaining('not recorded'))
  })

  it('takes only what the prompt added, never the calls of the history before it', () => {
    const history = [
      { role: 'user', content: 'Weather in Rome?' },
      { role: 'assistant', content: null, tool_calls: [call('call_0', 'Rome')] },
      { role: 'tool', tool_call_id: 'call_0', content: 'sun' },
      { role: 'assistant', content: 'It is sunny.' },
    ]
    const runs = extractAgentRuns([
      agent,
      appModelSpan('c1', 1, [system, ...history, user], lost),
      appModelSpan(
        'c2',
        20,
        [
          system,
          ...history,
          user,
          { role: 'assistant', content: null, tool_calls: [call('call_1')] },
          { role: 'tool', tool_call_id: 'call_1', content: 'rain' },
        ],
        { role: 'assistant', content: 'It rains.' },
      ),
    ])
    expect(toolCalls(runs[0]!).map((c) => c.id)).toEqual(['call_1'])
  })
})

describe('tool calls and results that no id names (Gemini functionCall / functionResponse)', () => {
  const system = { parts: [{ text: 'Help.' }] }
  const ask = (id: string) => ({ role: 'model', parts: [{ functionCall: { name: 'lookup', args: { id } } }] })
  const result = (status: string) => ({
    role: 'user',
    parts: [{ functionResponse: { name: 'lookup', response: { status } } }],
  })
  const generate = (id: string, start: number, contents: object[], answer: object) =>
    span({
      id,
      parent: 'a',
      name: 'generate_content',
      start,
      end: start + 4,
      attributes: {
        'app.request': JSON.stringify({ systemInstruction: system, contents }),
        'app.response': JSON.stringify({ candidates: [{ content: answer }] }),
      },
    })
  const agent = span({ id: 'a', name: 'support', end: 100, attributes: { 'span.type': 'agent' } })

  it("are joined by tool name: the last results of a name in a later prompt are that name's calls", () => {
    const user = { role: 'user', parts: [{ text: 'Where is A17?' }] }
    // An earlier turn's call of the same tool is history, before the run's input.
    const history = [{ role: 'user', parts: [{ text: 'And A16?' }] }, ask('A16'), result('lost')]
    const runs = extractAgentRuns([
      agent,
      generate('c1', 1, [...history, user], ask('A17')),
      generate('c2', 10, [...history, user, ask('A17'), result('shipped')], {
        role: 'model',
        parts: [{ text: 'It shipped.' }],
      }),
    ])
    expect(toolCalls(runs[0]!)).toEqual([
      { id: 'call-0', name: 'lookup', args: { id: 'A17' }, result: { status: 'shipped' } },
    ])
    expect(runs[0]!.notes ?? []).not.toContainEqual(expect.stringContaining('not recorded'))
  })
})
