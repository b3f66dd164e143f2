/** Rules that read every convention alike (issue 27), each on the smallest trace that needs it. */
import { describe, expect, it } from 'vitest'
import { type Span, StatusCode } from '../model/index.ts'
import { extractAgentRuns } from './index.ts'
import { span } from './testing/span-builder.ts'

const oi = (kind: string, more: Record<string, string> = {}) => ({ 'openinference.span.kind': kind, ...more })

const agentSpan = span({
  id: 'a',
  name: 'invoke_agent x',
  end: 10,
  attributes: { 'gen_ai.operation.name': 'invoke_agent' },
})

/** A GenAI tool span of `agentSpan`'s run, with `more` attributes. */
function toolSpan(more: Record<string, string>) {
  const attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': 'lookup',
    'gen_ai.tool.call.id': 'call_1',
    ...more,
  }
  return span({ id: 't', parent: 'a', name: 'execute_tool lookup', start: 2, end: 3, attributes })
}

/** The tool-invocation part of the only run of `spans`. */
function onlyToolCall(spans: Span[]) {
  const [run] = extractAgentRuns(spans)
  return run!.output[0]!.content.parts.find((part) => part.type === 'tool-invocation')
}

describe('reading rules shared by every convention', () => {
  it('names a run named after a class by the agent-name field of its steps, and skips a call that recorded nothing', () => {
    const [run] = extractAgentRuns([
      span({ id: 'a', name: 'FunctionAgent.run', end: 100, attributes: oi('AGENT') }),
      span({
        id: 's',
        parent: 'a',
        name: 'init_run',
        start: 1,
        end: 2,
        attributes: oi('CHAIN', { 'output.value': "AgentInput(input=[], current_agent_name='support')" }),
      }),
      span({ id: 'p', parent: 'a', name: 'prepare', start: 3, end: 4, attributes: oi('LLM') }),
      span({
        id: 'c',
        parent: 'a',
        name: 'chat',
        start: 5,
        end: 9,
        attributes: oi('LLM', {
          'llm.input_messages.0.message.role': 'system',
          'llm.input_messages.0.message.content': 'Be brief.',
          'llm.input_messages.1.message.role': 'user',
          'llm.input_messages.1.message.content': 'Hi',
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.content': 'Hello',
        }),
      }),
    ])
    expect(run!.agentName).toBe('support')
    expect(run!.input.systemMessages).toEqual([{ role: 'system', content: 'Be brief.' }])
    expect(run!.input.inputMessages.map((message) => message.content.content)).toEqual(['Hi'])
  })

  it("reads a failed tool's message from its {error} result where the span names only a code", () => {
    const tool = toolSpan({
      'error.type': 'TOOL_ERROR',
      'gen_ai.tool.call.result': '{"error": "Order Z99 not found"}',
    })
    tool.status = { code: StatusCode.ERROR }
    expect(onlyToolCall([agentSpan, tool])).toMatchObject({
      toolInvocation: { state: 'output-error', errorText: 'Order Z99 not found' },
    })
  })

  it("reads a GenAI tool span's arguments and result from keys of the producer's own", () => {
    const tool = toolSpan({
      'vendor.tool_call_args': '{"orderId":"A17"}',
      'vendor.tool_response': '{"status":"shipped"}',
    })
    expect(onlyToolCall([agentSpan, tool])).toMatchObject({
      toolInvocation: { toolCallId: 'call_1', args: { orderId: 'A17' }, result: { status: 'shipped' } },
    })
  })

  it("reads a failed run's input from a message list its agent span holds when no model call recorded a prompt", () => {
    const agent = span({
      id: 'a',
      name: 'invoke_agent x',
      end: 10,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'vendor.all_messages': '[{"role":"user","parts":[{"type":"text","content":"Hello?"}]}]',
      },
      error: 'model overloaded',
    })
    const chat = span({ id: 'c', parent: 'a', name: 'chat', start: 1, end: 2, error: 'overloaded' })
    chat.attributes = { 'gen_ai.operation.name': 'chat' }
    const [run] = extractAgentRuns([agent, chat])
    expect(run!.input.inputMessages.map((message) => message.content.content)).toEqual(['Hello?'])
    expect(run!.notes).toContain("input: the agent span's own message list (no model call recorded a prompt)")
  })

  describe('an agent called as a tool that recorded no input or answer of its own', () => {
    /** A supervisor whose tool call `t` ran the sub-agent `b` with these arguments and result. */
    const calledThrough = (args: string, result: string) => {
      const call = span({
        id: 't',
        parent: 'a',
        name: 'execute_tool researcher',
        start: 2,
        end: 8,
        attributes: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'researcher',
          'gen_ai.tool.call.arguments': args,
          'gen_ai.tool.call.result': result,
        },
      })
      const sub = span({
        id: 'b',
        parent: 't',
        name: 'invoke_agent researcher',
        start: 3,
        end: 7,
        attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'researcher' },
      })
      // Its model call recorded no content (it went to log records only).
      const chat = span({ id: 'm', parent: 'b', name: 'chat', start: 4, end: 6 })
      chat.attributes = { 'gen_ai.operation.name': 'chat' }
      const runs = extractAgentRuns([agentSpan, call, sub, chat])
      return runs.find((run) => run.agentName === 'researcher')!
    }

    it("takes its input and final text from the calling tool call's arguments and result", () => {
      const run = calledThrough('{"request":"Return policy?"}', '{"result":"30 days."}')
      expect(run.input.inputMessages.map((message) => message.content.content)).toEqual(['Return policy?'])
      expect(run.output[0]!.content.content).toBe('30 days.')
      expect(run.recorded).toMatchObject({ input: true, finalText: true })
      expect(run.notes).toContain(
        "input: the calling tool call's arguments (the agent ran as a tool of its caller)",
      )
    })

    it('does not guess from arguments or a result that are not one text', () => {
      const run = calledThrough('{"question":"Return policy?","region":"EU"}', '{"hits":["30 days."]}')
      expect(run.input.inputMessages).toEqual([])
      expect(run.output[0]!.content.content).toBe('')
      expect(run.recorded).toMatchObject({ input: false, finalText: false })
    })
  })
})
