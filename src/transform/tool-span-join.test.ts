/**
 * A tool span joined to the model's call where the span itself says less than the call, or wraps
 * it: no tool name but a span name that names the requested tool (`lookup_order.run`), arguments
 * wrapped one level down beside options of the framework's own.
 */
import { describe, expect, it } from 'vitest'
import { extractAgentRuns } from './index.ts'
import { toolCalls } from './testing/fixture-runs.ts'
import { span } from './testing/span-builder.ts'

/** An OpenInference run: AGENT → LLM asking for `lookup_order` → TOOL span → LLM. */
function run(tool: { name: string; attributes: Record<string, string> }) {
  const llm = (id: string, start: number, extra: Record<string, string>) =>
    span({
      id,
      parent: 'a',
      start,
      end: start + 5,
      attributes: {
        'openinference.span.kind': 'LLM',
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': 'Where is A17?',
        ...extra,
      },
    })
  return extractAgentRuns([
    span({
      id: 'a',
      name: 'support agent',
      end: 100,
      attributes: {
        'openinference.span.kind': 'AGENT',
        'agent.name': 'support',
        'input.value': 'Where is A17?',
      },
    }),
    llm('l1', 1, {
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_1',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'lookup_order',
      'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"orderId":"A17"}',
    }),
    span({
      id: 't1',
      parent: 'a',
      name: tool.name,
      start: 10,
      end: 12,
      attributes: { 'openinference.span.kind': 'TOOL', 'output.value': 'shipped', ...tool.attributes },
    }),
    llm('l2', 20, {
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.content': 'It shipped.',
    }),
  ])
}

const expected = [{ id: 'call_1', name: 'lookup_order', args: { orderId: 'A17' }, result: 'shipped' }]

describe('a tool span without a tool name', () => {
  it('is the requested call its span name names, with a method or a prefix around it', () => {
    for (const name of ['lookup_order', 'lookup_order.run', 'lookup_order.__call__', 'Tool: lookup_order']) {
      const runs = run({ name, attributes: { 'input.value': '{"orderId":"A17"}' } })
      expect(toolCalls(runs[0]!), name).toEqual(expected)
      expect(runs[0]!.notes ?? [], name).not.toContainEqual(expect.stringContaining('tool name not recorded'))
    }
  })

  it('stays a call of its own when its span name names no requested tool', () => {
    const calls = toolCalls(
      run({ name: 'refund.run', attributes: { 'input.value': '{"orderId":"A17"}' } })[0]!,
    )
    expect(calls.map((call) => call.name)).toEqual(['lookup_order', 'unknown'])
  })
})

describe("a tool span's arguments", () => {
  it("are the model's when the span wraps them one level down beside options of its own", () => {
    for (const input of [
      { args: [], kwargs: { orderId: 'A17' } },
      { input: { orderId: 'A17' }, config: { timeout: 5 } },
    ]) {
      const runs = run({
        name: 'lookup_order',
        attributes: { 'tool.name': 'lookup_order', 'input.value': JSON.stringify(input) },
      })
      expect(toolCalls(runs[0]!), JSON.stringify(input)).toEqual(expected)
    }
  })

  it('are what the tool received when they are not a wrapper of the model call', () => {
    const runs = run({
      name: 'lookup_order',
      attributes: { 'tool.name': 'lookup_order', 'input.value': '{"orderId":"A17","user":"u-1"}' },
    })
    expect(toolCalls(runs[0]!)[0]!.args).toEqual({ orderId: 'A17', user: 'u-1' })
  })
})
