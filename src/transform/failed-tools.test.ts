/**
 * A tool that failed, read wherever the trace says so: a span of its own in error status that is
 * not taken for a tool span but names the tool (a decorator span, a vendor's function span), and a
 * tool span whose attributes, not its status, record the failure (`…outcome` = `error`, `…error.type`).
 */
import { describe, expect, it } from 'vitest'
import { extractAgentRuns } from './index.ts'
import { toolCalls } from './testing/fixture-runs.ts'
import { appModelSpan, span } from './testing/span-builder.ts'

const system = { role: 'system', content: 'Look up orders.' }
const user = { role: 'user', content: 'Where is order Z99?' }
const call = {
  id: 'call_1',
  type: 'function',
  function: { name: 'lookup_order', arguments: '{"orderId":"Z99"}' },
}

/** An agent loop of the application's own: an agent span, two model calls, the tool message between them. */
function loop(between: ReturnType<typeof span>[], toolMessage = 'Error: Order Z99 not found') {
  return extractAgentRuns([
    span({
      id: 'a',
      name: 'support',
      end: 100,
      attributes: { 'span.type': 'agent', 'app.input': user.content },
    }),
    appModelSpan('c1', 1, [system, user], { role: 'assistant', content: null, tool_calls: [call] }),
    ...between,
    appModelSpan(
      'c2',
      30,
      [
        system,
        user,
        { role: 'assistant', tool_calls: [call] },
        { role: 'tool', tool_call_id: 'call_1', content: toolMessage },
      ],
      { role: 'assistant', content: 'Sorry, I could not find order Z99.' },
    ),
  ])
}

describe('a failed span that names a requested tool', () => {
  it('marks the call failed with the span error, by span name', () => {
    const runs = loop([
      span({
        id: 't',
        parent: 'a',
        name: 'lookup_order',
        start: 10,
        end: 12,
        attributes: { 'app.inputs': '{"orderId": "Z99"}' },
        error: 'ValueError: Order Z99 not found',
      }),
    ])
    expect(runs).toHaveLength(1)
    expect(toolCalls(runs[0]!)).toEqual([
      { id: 'call_1', name: 'lookup_order', args: { orderId: 'Z99' }, error: 'Order Z99 not found' },
    ])
  })

  it('by a name attribute, with the message of its exception event', () => {
    const failed = span({
      id: 't',
      parent: 'a',
      name: 'Function: {name}',
      start: 10,
      end: 12,
      attributes: { name: 'lookup_order', input: '{"orderId": "Z99"}' },
      events: [{ name: 'exception', attributes: { 'exception.message': 'Order Z99 not found' } }],
    })
    failed.status = { code: 2 }
    expect(toolCalls(loop([failed])[0]!)).toEqual([
      { id: 'call_1', name: 'lookup_order', args: { orderId: 'Z99' }, error: 'Order Z99 not found' },
    ])
  })

  it('leaves the call alone when the span started before the model asked for it, or names another tool', () => {
    const early = span({ id: 't', parent: 'a', name: 'lookup_order', start: 0, end: 1, error: 'boom' })
    const other = span({ id: 'u', parent: 'a', name: 'refund', start: 10, end: 12, error: 'boom' })
    const expected = [
      { id: 'call_1', name: 'lookup_order', args: { orderId: 'Z99' }, result: 'Error: Order Z99 not found' },
    ]
    expect(toolCalls(loop([early])[0]!)).toEqual(expected)
    expect(toolCalls(loop([other])[0]!)).toEqual(expected)
  })
})

describe('a tool span whose attributes record the failure', () => {
  const genaiRun = (toolAttributes: Record<string, string>) =>
    extractAgentRuns([
      span({
        id: 'a',
        name: 'invoke_agent',
        end: 100,
        attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support' },
      }),
      span({
        id: 'c1',
        parent: 'a',
        name: 'chat',
        start: 1,
        end: 5,
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.input.messages': JSON.stringify([
            { role: 'user', parts: [{ type: 'text', content: user.content }] },
          ]),
          'gen_ai.output.messages': JSON.stringify([
            {
              role: 'assistant',
              parts: [
                { type: 'tool_call', id: 'call_1', name: 'lookup_order', arguments: { orderId: 'Z99' } },
              ],
            },
          ]),
        },
      }),
      span({
        id: 't',
        parent: 'a',
        name: 'execute_tool',
        start: 10,
        end: 12,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'lookup_order',
          'gen_ai.tool.call.id': 'call_1',
          'gen_ai.tool.call.arguments': '{"orderId":"Z99"}',
          'gen_ai.tool.call.result': 'Order Z99 not found',
          ...toolAttributes,
        },
      }),
    ])

  it('reads an outcome of error, or an error type, as a failure whose text is the result', () => {
    const failures: Record<string, string>[] = [
      { 'gen_ai.tool.call.outcome': 'error', 'gen_ai.tool.error.type': 'other' },
      { 'gen_ai.tool.call.outcome': 'failure' },
      { 'error.type': 'ValueError' },
    ]
    for (const marks of failures) {
      expect(toolCalls(genaiRun(marks)[0]!), JSON.stringify(marks)).toEqual([
        { id: 'call_1', name: 'lookup_order', args: { orderId: 'Z99' }, error: 'Order Z99 not found' },
      ])
    }
  })

  it('reads an outcome of success as the result it is', () => {
    expect(toolCalls(genaiRun({ 'gen_ai.tool.call.outcome': 'success' })[0]!)).toEqual([
      { id: 'call_1', name: 'lookup_order', args: { orderId: 'Z99' }, result: 'Order Z99 not found' },
    ])
  })
})
