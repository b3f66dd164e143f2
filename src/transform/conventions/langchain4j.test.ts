import { describe, expect, it } from 'vitest'
import type { Span, SpanEvent } from '../../model/index.ts'
import { detectConvention, extractAgentRuns, spanRole } from '../index.ts'
import { outputSteps, toolInvocations } from '../testing/output-steps.ts'
import { span } from '../testing/span-builder.ts'
import { toolError, toolResult } from '../testing/tool-invocations.ts'

const scope = { name: 'io.quarkus.opentelemetry' }
const quarkus = (spec: Parameters<typeof span>[0]): Span => ({ ...span(spec), scope, status: { code: 0 } })
const exception = (message: string): SpanEvent => ({
  name: 'exception',
  timeUnixNano: '0',
  attributes: { 'exception.type': 'java.lang.IllegalArgumentException', 'exception.message': message },
})

const service = (id: string, parent?: string, start = 0, end = 20) =>
  quarkus({ id, parent, name: 'langchain4j.aiservices.RefundAgent.chat', start, end })

function completion(id: string, parent: string | undefined, start: number, completionText?: string): Span {
  return quarkus({
    id,
    parent,
    name: 'completion gpt-4o-mini',
    start,
    end: start + 1,
    attributes: {
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.prompt': 'You refund orders.\nRefund A17\nnull\n{"ok":true}',
      ...(completionText === undefined ? {} : { 'gen_ai.completion': completionText }),
    },
  })
}

function tool(id: string, parent: string, start: number, extra: Record<string, string> = {}): Span {
  return quarkus({
    id,
    parent,
    name: 'langchain4j.tools.refund',
    start,
    end: start + 1,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.call.id': `call_${id}`,
      'gen_ai.tool.name': 'refund',
      'gen_ai.tool.call.arguments': '{"orderId": "A17"}',
      ...extra,
    },
  })
}

describe('Quarkus LangChain4j (GenAI-style spans of its own)', () => {
  it('reads an AI service method span as the run, named after the interface', () => {
    expect(spanRole(service('s'))).toBe('agent')
    expect(detectConvention(service('s'))).toBe('genai')
    // Before 1.8 the model span has no gen_ai.operation.name: its name and model say what it is.
    expect(spanRole(completion('m', 's', 1))).toBe('model')
    const [run] = extractAgentRuns([service('s'), completion('m', 's', 1, 'Done.')])
    expect(run!.agentName).toBe('RefundAgent')
    expect(run!.output[0]!.content.content).toBe('Done.')
  })

  it('never splits the flattened gen_ai.prompt into messages: input and instructions are unusable, and said to be there', () => {
    const [run] = extractAgentRuns([service('s'), completion('m', 's', 1, 'Done.')])
    expect(run!.input.systemMessages).toEqual([])
    expect(run!.input.inputMessages).toEqual([])
    expect(run!.input.rememberedMessages).toEqual([])
    expect(run!.recorded).toMatchObject({ input: false, system: false })
    expect(run!.inseparable).toEqual(['input', 'system'])
    expect(run!.notes).toContain(
      'input messages and system instructions recorded only as flattened text (gen_ai.prompt), not read',
    )
    expect(run!.notes).not.toContain('input messages not recorded (content capture off?)')
  })

  it('takes tool calls from the tool spans, the step texts from gen_ai.completion', () => {
    const spans = [
      service('s'),
      completion('m1', 's', 1),
      tool('t1', 's', 3, { 'gen_ai.tool.call.result': '{\n  "refunded" : 20.0\n}' }),
      completion('m2', 's', 5, 'Refunding now.'),
      tool('t2', 's', 7, { 'gen_ai.tool.call.result': '{"refunded": 5}' }),
      completion('m3', 's', 9, 'Refunded.'),
    ]
    const [run] = extractAgentRuns(spans)
    expect(toolInvocations(run!)).toEqual([
      toolResult('call_t1', 'refund', { orderId: 'A17' }, { refunded: 20 }),
      toolResult('call_t2', 'refund', { orderId: 'A17' }, { refunded: 5 }),
    ])
    expect(outputSteps(run!)).toEqual([
      { texts: [], toolCallIds: ['call_t1'] },
      { texts: ['Refunding now.'], toolCallIds: ['call_t2'] },
      { texts: ['Refunded.'], toolCallIds: [] },
    ])
  })

  it('reads a failure from the exception event alone (the status stays unset)', () => {
    const failedTool = { ...tool('t1', 's', 3), events: [exception('Order Z99 not found')] }
    const [ok] = extractAgentRuns([
      service('s'),
      completion('m1', 's', 1),
      failedTool,
      completion('m2', 's', 5, 'Sorry.'),
    ])
    expect(toolInvocations(ok!)).toEqual([
      toolError('call_t1', 'refund', { orderId: 'A17' }, 'Order Z99 not found'),
    ])
    expect(ok!.status).toBe('ok')
    const failedRun = { ...service('s'), events: [exception('500: Upstream model overloaded')] }
    const [failed] = extractAgentRuns([failedRun, completion('m1', 's', 1)])
    expect(failed!.status).toBe('error')
  })

  it('puts a streamed run’s first tool call in a step of its own when its model span is elsewhere', () => {
    // Streaming: the service span ends when it returns; the first model call is a root of its own.
    const spans = [
      service('s', undefined, 0, 1),
      completion('m1', undefined, 2),
      tool('t1', 's', 4, { 'gen_ai.tool.call.result': '{"refunded": 20}' }),
      completion('m2', 's', 6, 'Refunded.'),
    ]
    const [run] = extractAgentRuns(spans)
    expect(outputSteps(run!)).toEqual([
      { texts: [], toolCallIds: ['call_t1'] },
      { texts: ['Refunded.'], toolCallIds: [] },
    ])
  })
})
