/**
 * Model calls recorded as the provider's own request and response bodies under keys of the
 * producer's own: Amazon Bedrock's Converse API (`system`, `messages` with `toolUse` / `toolResult`
 * blocks; the answer under `output.message`), OpenAI Responses answers that only call tools, and
 * Gemini function responses (`output` / `error`).
 */
import { describe, expect, it } from 'vitest'
import { extractAgentRuns } from './index.ts'
import { requestMessages, responseMessages } from './provider-wire.ts'
import { toolCalls } from './testing/fixture-runs.ts'
import { span } from './testing/span-builder.ts'

const request = {
  modelId: 'anthropic.claude-3-haiku',
  system: [{ text: 'Be brief.' }],
  messages: [{ role: 'user', content: [{ text: 'Where is A17?' }] }],
}
const asked = {
  role: 'assistant',
  content: [{ toolUse: { toolUseId: 'tu_1', name: 'lookup', input: { id: 'A17' } } }],
}
const answered = {
  role: 'user',
  content: [{ toolResult: { toolUseId: 'tu_1', content: [{ text: 'shipped' }], status: 'success' } }],
}

describe('Bedrock Converse bodies', () => {
  it('read the answer under output.message', () => {
    expect(responseMessages({ output: { message: asked }, stopReason: 'tool_use' })).toEqual([
      {
        role: 'assistant',
        parts: [{ type: 'tool-call', toolCallId: 'tu_1', toolName: 'lookup', args: { id: 'A17' } }],
      },
    ])
  })

  it('rebuild the run: instructions, input, the tool call and its result, the final text', () => {
    const converse = (id: string, start: number, body: object, answer: object) =>
      span({
        id,
        parent: 'a',
        name: 'bedrock.converse',
        start,
        end: start + 4,
        attributes: { 'app.request': JSON.stringify(body), 'app.response': JSON.stringify(answer) },
      })
    const [run] = extractAgentRuns([
      span({ id: 'a', name: 'support', end: 100, attributes: { 'span.type': 'agent' } }),
      converse('c1', 1, request, { output: { message: asked }, stopReason: 'tool_use' }),
      converse(
        'c2',
        10,
        { ...request, messages: [...request.messages, asked, answered] },
        {
          output: { message: { role: 'assistant', content: [{ text: 'It shipped.' }] } },
          stopReason: 'end_turn',
        },
      ),
    ])
    expect(run!.input.systemMessages).toEqual([{ role: 'system', content: 'Be brief.' }])
    expect(run!.input.inputMessages.map((message) => message.content.content)).toEqual(['Where is A17?'])
    expect(toolCalls(run!)).toEqual([{ id: 'tu_1', name: 'lookup', args: { id: 'A17' }, result: 'shipped' }])
    expect(run!.output[0]!.content.content).toBe('It shipped.')
    expect(run!.notes ?? []).toEqual([])
  })
})

describe('OpenAI Responses bodies', () => {
  it('read an answer that only calls tools (its items have no role)', () => {
    const request = {
      model: 'gpt-4o',
      instructions: 'Be brief.',
      input: [{ role: 'user', content: 'Where is A17?' }],
    }
    const call = { type: 'function_call', call_id: 'fc_1', name: 'lookup', arguments: '{"id":"A17"}' }
    const responses = (id: string, start: number, body: object, output: object[]) =>
      span({
        id,
        parent: 'a',
        name: 'responses.create',
        start,
        end: start + 4,
        attributes: {
          'app.request': JSON.stringify(body),
          'app.response': JSON.stringify({ object: 'response', model: 'gpt-4o', output }),
        },
      })
    const [run] = extractAgentRuns([
      span({ id: 'a', name: 'support', end: 100, attributes: { 'span.type': 'agent' } }),
      responses('c1', 1, request, [call]),
      responses(
        'c2',
        10,
        {
          ...request,
          input: [
            ...request.input,
            call,
            { type: 'function_call_output', call_id: 'fc_1', output: 'shipped' },
          ],
        },
        [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'It shipped.' }] }],
      ),
    ])
    expect(toolCalls(run!)).toEqual([{ id: 'fc_1', name: 'lookup', args: { id: 'A17' }, result: 'shipped' }])
    expect(run!.output[0]!.content.content).toBe('It shipped.')
    // Read from the answer itself, not rebuilt from the next prompt.
    expect(run!.notes ?? []).toEqual([])
  })
})

describe('Gemini function responses', () => {
  const response = (value: object) =>
    requestMessages({
      contents: [
        { role: 'user', parts: [{ functionResponse: { id: 'fc_1', name: 'lookup', response: value } }] },
      ],
    })?.flatMap((message) => message.parts)

  it('take "output" as the output and "error" as a failure, as the API defines them', () => {
    expect(response({ error: 'Order Z99 not found' })).toEqual([
      {
        type: 'tool-result',
        toolCallId: 'fc_1',
        toolName: 'lookup',
        result: 'Order Z99 not found',
        isError: true,
      },
    ])
    expect(response({ output: { status: 'shipped' } })).toEqual([
      { type: 'tool-result', toolCallId: 'fc_1', toolName: 'lookup', result: { status: 'shipped' } },
    ])
    // Neither key: the whole response is the output.
    expect(response({ status: 'shipped' })).toEqual([
      { type: 'tool-result', toolCallId: 'fc_1', toolName: 'lookup', result: { status: 'shipped' } },
    ])
  })
})
