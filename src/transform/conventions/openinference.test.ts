import { describe, expect, it } from 'vitest'
import { extractAgentRuns, findAgentSpans } from '../index.ts'
import { sid, span } from '../testing/span-builder.ts'
import { toolResult } from '../testing/tool-invocations.ts'
import { keywordArguments } from './openinference.ts'

/** An OpenInference trace (e.g. an instrumented OpenAI Agents app): AGENT → LLM, TOOL, LLM, and a sub-agent. */
function openInferenceTrace() {
  return [
    span({
      id: 'a',
      name: 'support agent',
      end: 100,
      attributes: {
        'openinference.span.kind': 'AGENT',
        'agent.name': 'support',
        'session.id': 's-1',
        'user.id': 'u-1',
        metadata: JSON.stringify({ plan: 'pro' }),
        'input.value': 'Where is A17?',
        'input.mime_type': 'text/plain',
        'output.value': 'It shipped yesterday.',
        'output.mime_type': 'text/plain',
      },
    }),
    span({
      id: 'l1',
      parent: 'a',
      start: 1,
      end: 10,
      attributes: {
        'openinference.span.kind': 'LLM',
        'llm.input_messages.0.message.role': 'system',
        'llm.input_messages.0.message.content': 'Answer order questions.',
        'llm.input_messages.1.message.role': 'user',
        'llm.input_messages.1.message.content': 'Hello',
        'llm.input_messages.2.message.role': 'assistant',
        'llm.input_messages.2.message.content': 'Hi! What can I do?',
        'llm.input_messages.3.message.role': 'user',
        'llm.input_messages.3.message.contents.0.message_content.type': 'text',
        'llm.input_messages.3.message.contents.0.message_content.text': 'Where is A17?',
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_1',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'lookup',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"id":"A17"}',
      },
    }),
    span({
      id: 't1',
      parent: 'a',
      start: 11,
      end: 30,
      attributes: {
        'openinference.span.kind': 'TOOL',
        'tool.name': 'lookup',
        'tool_call.id': 'call_1',
        'input.value': '{"id":"A17"}',
        'output.value': '{"status":"shipped"}',
        'output.mime_type': 'application/json',
      },
    }),
    span({
      id: 'sub',
      parent: 't1',
      start: 12,
      end: 29,
      attributes: {
        'openinference.span.kind': 'AGENT',
        'agent.name': 'carrier',
        'input.value': 'A17',
        'output.value': 'shipped',
      },
    }),
    span({
      id: 'st',
      parent: 'sub',
      start: 13,
      end: 14,
      attributes: {
        'openinference.span.kind': 'TOOL',
        'tool.name': 'dhl',
        'input.value': '{}',
        'output.value': 'ok',
      },
    }),
    span({
      id: 'l2',
      parent: 'a',
      start: 31,
      end: 40,
      attributes: {
        'openinference.span.kind': 'LLM',
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.content': 'It shipped yesterday.',
      },
    }),
  ]
}

describe('extractAgentRuns on OpenInference spans', () => {
  it('builds the parent run from flattened messages and tool spans', () => {
    const [run] = extractAgentRuns(openInferenceTrace())
    expect(run).toMatchObject({ convention: 'openinference', agentName: 'support', conversationId: 's-1' })
    expect(run!.requestContext).toEqual({
      plan: 'pro',
      serviceName: 'test-service',
      userId: 'u-1',
      sessionId: 's-1',
    })
    expect(run!.input.systemMessages).toEqual([{ role: 'system', content: 'Answer order questions.' }])
    expect(run!.input.inputMessages.map((m) => m.content.content)).toEqual(['Where is A17?'])
    expect(run!.input.rememberedMessages.map((m) => [m.role, m.content.content])).toEqual([
      ['user', 'Hello'],
      ['assistant', 'Hi! What can I do?'],
    ])
    expect(run!.output[0]!.content.toolInvocations).toEqual([
      toolResult('call_1', 'lookup', { id: 'A17' }, { status: 'shipped' }),
    ])
    expect(run!.output[0]!.content.content).toBe('It shipped yesterday.')
  })

  it('gives the sub-agent its own run, without its tools in the parent', () => {
    const runs = extractAgentRuns(openInferenceTrace())
    expect(runs.map((run) => run.agentName)).toEqual(['support', 'carrier'])
    const sub = runs[1]!
    expect(sub.parentRunSpanId).toBe(sid('a'))
    expect(sub.output[0]!.content.toolInvocations?.map((call) => call.toolName)).toEqual(['dhl'])
    expect(sub.input.inputMessages.map((m) => m.content.content)).toEqual(['A17'])
    expect(runs[0]!.output[0]!.content.toolInvocations?.map((call) => call.toolName)).toEqual(['lookup'])
  })

  it('falls back to the provider request and response in input.value / output.value', () => {
    const runs = extractAgentRuns([
      span({ id: 'a', end: 50, attributes: { 'openinference.span.kind': 'AGENT', 'agent.name': 'bot' } }),
      span({
        id: 'l',
        parent: 'a',
        start: 1,
        end: 10,
        attributes: {
          'openinference.span.kind': 'LLM',
          'input.value': JSON.stringify({
            model: 'm',
            messages: [
              { role: 'system', content: 'Be short.' },
              { role: 'user', content: 'Hi?' },
            ],
          }),
          'input.mime_type': 'application/json',
          'output.value': JSON.stringify({
            choices: [{ message: { role: 'assistant', content: 'Hello.' } }],
          }),
          'output.mime_type': 'application/json',
        },
      }),
    ])
    expect(runs[0]!.input.systemMessages).toEqual([{ role: 'system', content: 'Be short.' }])
    expect(runs[0]!.input.inputMessages.map((m) => m.content.content)).toEqual(['Hi?'])
    expect(runs[0]!.output[0]!.content.content).toBe('Hello.')
  })

  describe('root chains (LangChain AgentExecutor, LangGraph)', () => {
    const chain = (extra = {}) =>
      span({
        id: 'ch',
        name: 'AgentExecutor',
        end: 50,
        attributes: {
          'openinference.span.kind': 'CHAIN',
          'input.value': JSON.stringify({ input: 'Where is A17?' }),
          'input.mime_type': 'application/json',
          'output.value': JSON.stringify({ output: 'Shipped.' }),
          'output.mime_type': 'application/json',
          ...extra,
        },
      })
    const llm = span({
      id: 'l',
      parent: 'ch',
      start: 1,
      end: 5,
      attributes: { 'openinference.span.kind': 'LLM' },
    })
    const lookup = span({
      id: 't',
      parent: 'ch',
      start: 6,
      end: 7,
      attributes: {
        'openinference.span.kind': 'TOOL',
        'tool.name': 'lookup',
        'input.value': '{"id":"A17"}',
        'output.value': 'shipped',
      },
    })

    it('are agent runs when they call a model and hold no agent span', () => {
      const runs = extractAgentRuns([chain(), llm, lookup])
      expect(findAgentSpans([chain(), llm, lookup]).map((s) => s.spanId)).toEqual([sid('ch')])
      expect(runs).toHaveLength(1)
      expect(runs[0]!.input.inputMessages.map((m) => m.content.content)).toEqual(['Where is A17?'])
      expect(runs[0]!.output[0]!.content.toolInvocations?.map((c) => [c.toolName, c.args, c.result])).toEqual(
        [['lookup', { id: 'A17' }, 'shipped']],
      )
      expect(runs[0]!.output[0]!.content.content).toBe('Shipped.')
    })

    it('give way to the agent spans they hold', () => {
      const agent = span({
        id: 'ag',
        parent: 'ch',
        start: 1,
        end: 40,
        attributes: { 'openinference.span.kind': 'AGENT', 'agent.name': 'inner' },
      })
      const inner = { ...llm, parentSpanId: sid('ag') }
      const runs = extractAgentRuns([chain(), agent, inner])
      expect(runs.map((run) => [run.agentName, run.parentRunSpanId])).toEqual([['inner', undefined]])
      expect(findAgentSpans([chain(), agent, inner]).map((s) => s.spanId)).toEqual([sid('ag')])
    })

    it('are not runs without a model call, nor when they have a parent', () => {
      expect(extractAgentRuns([chain(), lookup])).toEqual([])
      expect(
        extractAgentRuns(
          [chain({}), { ...llm }].map((s) => ({
            ...s,
            parentSpanId: s.spanId === sid('ch') ? sid('http') : s.parentSpanId,
          })),
        ),
      ).toEqual([])
    })
  })
})

describe('keywordArguments', () => {
  it('takes the arguments out of a call envelope of keyword arguments only', () => {
    expect(keywordArguments({ kwargs: { id: 'A17' } })).toEqual({ id: 'A17' })
    expect(keywordArguments({ args: [], kwargs: { id: 'A17' } })).toEqual({ id: 'A17' })
  })

  it('leaves arguments that are not such an envelope as they are', () => {
    const positional = { args: ['A17'], kwargs: {} }
    expect(keywordArguments(positional)).toBe(positional)
    const named = { kwargs: { id: 'A17' }, verbose: true }
    expect(keywordArguments(named)).toBe(named)
    expect(keywordArguments({ id: 'A17' })).toEqual({ id: 'A17' })
  })
})
