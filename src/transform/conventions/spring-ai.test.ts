import { describe, expect, it } from 'vitest'
import type { Span } from '../../model/index.ts'
import { extractAgentRuns, spanRole } from '../index.ts'
import { toolInvocations } from '../testing/output-steps.ts'
import { sid, span } from '../testing/span-builder.ts'
import { toolResult } from '../testing/tool-invocations.ts'

const micrometer = (spec: Parameters<typeof span>[0]): Span => ({
  ...span(spec),
  scope: { name: 'org.springframework.boot' },
})
const framework = { 'gen_ai.operation.name': 'framework', 'gen_ai.system': 'spring_ai' }

const chatClient = (id: string, parent?: string, start = 0) =>
  micrometer({
    id,
    parent,
    name: 'spring_ai chat_client',
    start,
    end: start + 30,
    attributes: { ...framework, 'spring.ai.kind': 'chat_client', 'spring.ai.chat.client.stream': 'false' },
  })
const advisor = (id: string, parent: string, start: number, name: string) =>
  micrometer({
    id,
    parent,
    name,
    start,
    end: start + 2,
    attributes: { ...framework, 'spring.ai.kind': 'advisor', 'spring.ai.advisor.name': name },
  })
const chat = (id: string, parent: string, start: number) =>
  micrometer({
    id,
    parent,
    name: 'chat gpt-4o-mini',
    start,
    end: start + 1,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
    },
  })
const toolCall = (id: string, parent: string, start: number, name: string, args: string, result: string) =>
  micrometer({
    id,
    parent,
    name: `execute_tool ${name}`,
    start,
    end: start + 1,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.system': 'spring_ai',
      'spring.ai.kind': 'tool_call',
      'spring.ai.tool.call.id': `call_${id}`,
      'spring.ai.tool.definition.name': name,
      'spring.ai.tool.call.arguments': args,
      'spring.ai.tool.call.result': result,
    },
  })

describe('Spring AI (Micrometer observations through a tracing bridge)', () => {
  it('reads the ChatClient call as the run, advisors as neither run nor tool', () => {
    expect(spanRole(chatClient('c'))).toBe('agent')
    expect(spanRole(advisor('a', 'c', 1, 'call'))).toBe('other')
    expect(spanRole(chat('m', 'a', 2))).toBe('model')
  })

  it('takes tool calls from the spring.ai.tool.* keys, and records no prompt or text', () => {
    const spans = [
      chatClient('c'),
      advisor('tc', 'c', 1, 'tool _calling '),
      advisor('a1', 'tc', 2, 'call'),
      chat('m1', 'a1', 3),
      toolCall('t1', 'tc', 5, 'lookup_order', '{"orderId": "A17"}', '{"orderId":"A17","status":"shipped"}'),
      advisor('a2', 'tc', 7, 'call'),
      chat('m2', 'a2', 8),
    ]
    const [run] = extractAgentRuns(spans)
    expect(run!.agentName).toBeUndefined()
    expect(toolInvocations(run!)).toEqual([
      toolResult('call_t1', 'lookup_order', { orderId: 'A17' }, { orderId: 'A17', status: 'shipped' }),
    ])
    expect(run!.input.inputMessages).toEqual([])
    expect(run!.output[0]!.content.content).toBe('')
  })

  it('makes a ChatClient call inside a tool a run of its own, called by the outer run', () => {
    const spans = [
      chatClient('c'),
      advisor('tc', 'c', 1, 'tool _calling '),
      advisor('a1', 'tc', 2, 'call'),
      chat('m1', 'a1', 3),
      toolCall('t1', 'tc', 5, 'ask', '{"q": "x"}', '{"answer":"y"}'),
      chatClient('sub', 't1', 6),
      advisor('sa', 'sub', 7, 'call'),
      chat('sm', 'sa', 8),
    ]
    const runs = extractAgentRuns(spans)
    expect(runs.map((run) => run.spanId)).toEqual([sid('c'), sid('sub')])
    expect(runs[1]!.parentRunSpanId).toBe(sid('c'))
    expect(toolInvocations(runs[0]!)).toEqual([toolResult('call_t1', 'ask', { q: 'x' }, { answer: 'y' })])
  })

  it('reads the conversation id a chat memory advisor records', () => {
    const client = chatClient('c')
    client.attributes['spring.ai.chat.client.conversation.id'] = 'conv-1'
    const [run] = extractAgentRuns([client, advisor('a1', 'c', 1, 'call'), chat('m1', 'a1', 2)])
    expect(run!.conversationId).toBe('conv-1')
  })
})
