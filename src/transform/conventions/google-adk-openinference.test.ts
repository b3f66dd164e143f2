import { describe, expect, it } from 'vitest'
import type { Span } from '../../model/index.ts'
import { extractAgentRuns } from '../index.ts'
import { toolInvocations } from '../testing/output-steps.ts'
import { sid, span } from '../testing/span-builder.ts'
import { toolError, toolResult } from '../testing/tool-invocations.ts'

const oiScope = { name: 'openinference.instrumentation.google_adk' }
const adkScope = { name: 'gcp.vertex.agent' }
const at = (scope: { name: string }, spec: Parameters<typeof span>[0]): Span => ({ ...span(spec), scope })

const event = (text: string) =>
  JSON.stringify({ content: { parts: [{ text }], role: 'model' }, partial: false })

/** A run as the OpenInference ADK instrumentation records it, with one folded model-call span. */
function trace(): Span[] {
  return [
    at(oiScope, {
      id: 'inv',
      name: 'invocation [app]',
      end: 100,
      attributes: {
        'openinference.span.kind': 'CHAIN',
        'input.value': JSON.stringify({
          user_id: 'u',
          session_id: 's-1',
          new_message: { parts: [{ text: 'Where is A17?' }], role: 'user' },
        }),
        'input.mime_type': 'application/json',
        'output.value': event('It shipped.'),
      },
    }),
    at(oiScope, {
      id: 'wf',
      parent: 'inv',
      name: 'invoke_workflow support',
      start: 1,
      end: 99,
      attributes: { 'openinference.span.kind': 'CHAIN', 'gen_ai.operation.name': 'invoke_workflow' },
    }),
    at(oiScope, {
      id: 'run',
      parent: 'wf',
      name: 'agent_run [support]',
      start: 2,
      end: 98,
      attributes: {
        'openinference.span.kind': 'AGENT',
        'agent.name': 'support',
        'session.id': 's-1',
        'output.value': event('It shipped.'),
        'output.mime_type': 'application/json',
      },
    }),
    at(adkScope, {
      id: 'model',
      parent: 'run',
      name: 'invoke_agent support',
      start: 3,
      end: 97,
      attributes: {
        'openinference.span.kind': 'LLM',
        'gen_ai.operation.name': 'generate_content',
        'gen_ai.system_instructions': JSON.stringify([
          { type: 'text', content: 'Be brief.\n\nYou are an agent. Your internal name is "support".' },
        ]),
        // The last call's prompt: history, the input, then the turn's own steps.
        'gen_ai.input.messages': JSON.stringify([
          { role: 'user', parts: [{ type: 'text', content: 'Hi' }] },
          { role: 'assistant', parts: [{ type: 'text', content: 'Hello!' }] },
          { role: 'user', parts: [{ type: 'text', content: 'Where is A17?' }] },
          {
            role: 'assistant',
            parts: [{ type: 'tool_call', id: 'c1', name: 'lookup', arguments: { id: 'A17' } }],
          },
          {
            role: 'user',
            parts: [{ type: 'tool_call_response', id: 'c1', response: { status: 'shipped' } }],
          },
        ]),
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: 'It shipped.' }], finish_reason: 'stop' },
        ]),
      },
    }),
    at(oiScope, {
      id: 't1',
      parent: 'model',
      name: 'execute_tool lookup',
      start: 4,
      end: 5,
      attributes: {
        'openinference.span.kind': 'TOOL',
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'lookup',
        'gen_ai.tool.call.id': 'c1',
        'gen_ai.tool.call.arguments': '{"id": "A17"}',
        'gen_ai.tool.call.result': '{"status": "shipped"}',
      },
    }),
    at(oiScope, {
      id: 't2',
      parent: 'model',
      name: 'execute_tool lookup',
      start: 6,
      end: 7,
      error: 'TOOL_ERROR',
      attributes: {
        'openinference.span.kind': 'TOOL',
        'tool.name': 'lookup',
        'tool.id': 'c2',
        'input.value': '{"id": "Z99"}',
        'output.value': '{"id": "c2", "name": "lookup", "response": {"error": "Order Z99 not found"}}',
      },
    }),
  ]
}

describe('Google ADK traced by OpenInference', () => {
  it('makes agent_run the run, not the invocation or workflow chains', () => {
    expect(extractAgentRuns(trace()).map((run) => run.spanId)).toEqual([sid('run')])
  })

  it("takes the input from the invocation's new_message, history and system from the folded prompt", () => {
    const [run] = extractAgentRuns(trace())
    expect(run!.agentName).toBe('support')
    expect(run!.input.systemMessages).toEqual([{ role: 'system', content: 'Be brief.' }])
    expect(run!.input.inputMessages.map((m) => m.content.content)).toEqual(['Where is A17?'])
    expect(run!.input.rememberedMessages.map((m) => m.content.content)).toEqual(['Hi', 'Hello!'])
    expect(run!.output[0]!.content.content).toBe('It shipped.')
  })

  it('reads tool calls from the GenAI keys, else the OpenInference ones, errors from the response', () => {
    const [run] = extractAgentRuns(trace())
    expect(toolInvocations(run!)).toEqual([
      toolResult('c1', 'lookup', { id: 'A17' }, { status: 'shipped' }),
      toolError('c2', 'lookup', { id: 'Z99' }, 'Order Z99 not found'),
    ])
  })

  it('continues the run into the agents a transfer reached (later agent_run siblings)', () => {
    const billing = at(oiScope, {
      id: 'bill',
      parent: 'wf',
      name: 'agent_run [billing]',
      start: 98,
      end: 99,
      attributes: {
        'openinference.span.kind': 'AGENT',
        'agent.name': 'billing',
        'output.value': event('Refunded.'),
      },
    })
    const runs = extractAgentRuns([...trace(), billing])
    expect(runs.map((run) => run.agentName)).toEqual(['support'])
  })
})
