import { describe, expect, it } from 'vitest'
import type { AgentRun, Attributes, Span } from '../../model/index.ts'
import { detectConvention, extractAgentRuns, spanRole } from '../index.ts'
import { Notes } from '../notes.ts'
import { sid, span } from '../testing/span-builder.ts'
import { logfireReader, logfireValue } from './logfire.ts'

const agentsScope = { name: 'logfire.openai_agents', version: '5.4.0' }

/** A Logfire span: named by its message template, structured attributes as JSON text with their schema. */
function lf(
  spec: Parameters<typeof span>[0] & { template: string; json?: Record<string, unknown> },
  scope = agentsScope,
): Span {
  const { template, json = {}, attributes = {}, ...rest } = spec
  const properties = Object.fromEntries(Object.keys(json).map((key) => [key, { type: 'object' }]))
  const encoded = Object.fromEntries(Object.entries(json).map(([key, value]) => [key, JSON.stringify(value)]))
  return {
    ...span({
      ...rest,
      name: template,
      attributes: {
        'logfire.msg_template': template,
        'logfire.span_type': 'span',
        ...attributes,
        ...encoded,
        'logfire.json_schema': JSON.stringify({ type: 'object', properties }),
      },
    }),
    scope,
  }
}

type Event = Record<string, unknown>
const system = (content: string): Event => ({
  'event.name': 'gen_ai.system.message',
  role: 'system',
  content,
})
const user = (content: string): Event => ({ 'event.name': 'gen_ai.user.message', role: 'user', content })
const said = (content: string): Event => ({
  'event.name': 'gen_ai.assistant.message',
  role: 'assistant',
  content,
})
const calls = (id: string, name: string, args: string): Event => ({
  'event.name': 'gen_ai.assistant.message',
  role: 'assistant',
  tool_calls: [{ id, type: 'function', function: { name, arguments: args } }],
})
const toolSaid = (id: string, content: string): Event => ({
  'event.name': 'gen_ai.tool.message',
  role: 'tool',
  id,
  content,
})

/** A `Responses API` span: the conversation (prompt, then answer) in Logfire's `events`. */
function responses(id: string, parent: string, start: number, events: Event[]): Span {
  return lf({
    id,
    parent,
    start,
    end: start + 1,
    template: 'Responses API with {gen_ai.request.model!r}',
    attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.system': 'openai' },
    json: { events },
  })
}

function turn(id: string, parent: string, start: number, end: number, agent: string): Span {
  return lf({ id, parent, start, end, template: `Turn {turn} for agent ${agent}`, attributes: { turn: 1 } })
}

function agentRun(
  id: string,
  parent: string,
  name: string,
  start: number,
  end: number,
  error?: string,
): Span {
  return lf({ id, parent, name, start, end, template: 'Agent run: {name!r}', attributes: { name }, error })
}

/** A `Function` span: the arguments as the model sent them, the output as text or as a structured value. */
function fn(
  id: string,
  parent: string,
  start: number,
  name: string,
  input: string,
  output: unknown,
  extra: Attributes = {},
): Span {
  const attributes = { name, input, ...extra, ...(typeof output === 'string' ? { output } : {}) }
  const json = typeof output === 'string' ? {} : { output }
  return lf({ id, parent, start, end: start + 1, template: 'Function: {name}', attributes, json })
}

/** `OpenAI Agents trace` → `Task` → the agents, as one `Runner.run` records them. */
function runner(groupId: string | undefined, spans: Span[]): Span[] {
  return [
    lf({
      id: 'tr',
      template: 'OpenAI Agents trace: {name}',
      end: 1_000,
      attributes: { name: 'Agent workflow', ...(groupId ? { group_id: groupId } : {}) },
    }),
    lf({ id: 'task', parent: 'tr', template: 'Task: Agent workflow', start: 1, end: 999 }),
    ...spans,
  ]
}

function toolParts(run: AgentRun) {
  return run.output[0]!.content.parts.flatMap((part) =>
    part.type === 'tool-invocation' ? [part.toolInvocation] : [],
  )
}

describe('Logfire', () => {
  it('reads a structured attribute as JSON only where logfire.json_schema gives it a type', () => {
    const tool = lf({
      id: 't',
      template: 'Function: {name}',
      attributes: { input: '{"a": 1}', output: '{"looks": "like JSON"}' },
      json: { result: { a: 1 } },
    })
    const notes = new Notes()
    expect(logfireValue(tool, 'result', notes)).toEqual({ a: 1 })
    // A string the program returned stays text, even when it looks like JSON.
    expect(logfireValue(tool, 'output', notes)).toBe('{"looks": "like JSON"}')
    expect(logfireValue(tool, 'missing', notes)).toBeUndefined()
  })

  it('leaves spans with OpenInference or GenAI agent/tool attributes to those readers', () => {
    const genAiAgent = lf({
      id: 'a',
      template: 'agent run',
      attributes: { 'gen_ai.operation.name': 'invoke_agent' },
    })
    const openInference = lf({ id: 'o', template: 'x', attributes: { 'openinference.span.kind': 'LLM' } })
    expect(detectConvention(genAiAgent)).toBe('genai')
    expect(detectConvention(openInference)).toBe('openinference')
    // A GenAI model call that Logfire wrote is Logfire's: its messages may be only in `events`.
    expect(detectConvention(responses('m', 'a', 1, []))).toBe('logfire')
  })

  it('reads GenAI messages on a Logfire model span before its own events', () => {
    const model = lf({
      id: 'm',
      template: 'chat {model}',
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': JSON.stringify([
          { role: 'user', parts: [{ type: 'text', content: 'GenAI' }] },
        ]),
      },
      json: { events: [user('events')] },
    })
    const input = logfireReader.modelInput(model, new Notes())
    expect(input).toEqual([{ role: 'user', parts: [{ type: 'text', text: 'GenAI' }] }])
  })

  it('splits a model call’s events into the prompt and the trailing assistant answer', () => {
    const model = responses('m', 'a', 1, [
      system('Be brief.'),
      user('Hi'),
      said('Hello'),
      calls('c1', 'f', '{}'),
    ])
    const notes = new Notes()
    expect(logfireReader.modelInput(model, notes)?.map((message) => message.role)).toEqual(['system', 'user'])
    expect(logfireReader.modelOutput(model, notes)?.map((message) => message.role)).toEqual([
      'assistant',
      'assistant',
    ])
  })

  it('reads Chat Completions spans: request_data messages and response_data message', () => {
    const model = lf(
      {
        id: 'm',
        template: 'Chat Completion with {request_data[model]!r}',
        attributes: { 'gen_ai.operation.name': 'chat' },
        json: {
          request_data: { model: 'gpt', messages: [{ role: 'user', content: 'Hi' }] },
          response_data: { message: { role: 'assistant', content: 'Hello' } },
        },
      },
      { name: 'logfire.openai', version: '5.4.0' },
    )
    const notes = new Notes()
    expect(spanRole(model)).toBe('model')
    expect(logfireReader.modelInput(model, notes)).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
    ])
    expect(logfireReader.modelOutput(model, notes)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', text: 'Hello' }] },
    ])
  })

  it('OpenAI Agents: a Chat Completions model’s Chat completion span is a model call (prompt, then answer)', () => {
    const model = lf({
      id: 'm',
      template: 'Chat completion with {gen_ai.request.model!r}',
      attributes: { 'gen_ai.system': 'openai' },
      json: {
        request_data: {
          model: 'gpt',
          messages: [
            { role: 'user', content: 'Hi' },
            { role: 'assistant', content: 'Hello' },
          ],
        },
      },
    })
    const notes = new Notes()
    expect(spanRole(model)).toBe('model')
    expect(logfireReader.modelInput(model, notes)?.map((message) => message.role)).toEqual(['user'])
    expect(logfireReader.modelOutput(model, notes)).toEqual([
      { role: 'assistant', parts: [{ type: 'text', text: 'Hello' }] },
    ])
  })

  it('a pending-span copy is nothing of its own', () => {
    const pending = lf({
      id: 'p',
      template: 'Agent run: {name!r}',
      attributes: { name: 'support', 'logfire.span_type': 'pending_span' },
    })
    expect(spanRole(pending)).toBe('other')
  })

  it('OpenAI Agents: one run per Agent run span, with the trace span’s group_id as its conversation', () => {
    const spans = runner('conv-1', [
      agentRun('ag', 'task', 'support', 2, 990),
      turn('t1', 'ag', 3, 20, 'support'),
      responses('m1', 't1', 4, [
        system('Be brief.'),
        user('Order A17?'),
        calls('c1', 'lookup', '{"id": "A17"}'),
      ]),
      fn('f1', 't1', 6, 'lookup', '{"id": "A17"}', { status: 'shipped' }),
      turn('t2', 'ag', 21, 40, 'support'),
      responses('m2', 't2', 22, [
        system('Be brief.'),
        user('Order A17?'),
        calls('c1', 'lookup', '{"id": "A17"}'),
        toolSaid('c1', "{'status': 'shipped'}"),
        said('Shipped.'),
      ]),
    ])
    const runs = extractAgentRuns(spans)
    expect(runs).toHaveLength(1)
    const run = runs[0]!
    expect(run).toMatchObject({ spanId: sid('ag'), agentName: 'support', convention: 'logfire' })
    expect(run.conversationId).toBe('conv-1')
    expect(run.input.systemMessages).toEqual([{ role: 'system', content: 'Be brief.' }])
    expect(toolParts(run)).toEqual([
      expect.objectContaining({
        toolCallId: 'c1',
        toolName: 'lookup',
        args: { id: 'A17' },
        result: { status: 'shipped' },
      }),
    ])
    expect(run.output[0]!.content.content).toBe('Shipped.')
  })

  it('OpenAI Agents: a failed tool is an error with the tool’s own message, out of the SDK envelope', () => {
    const failed = fn('f1', 't1', 6, 'lookup', '{"id": "Z9"}', 'Error: Order Z9 not found', {
      error: JSON.stringify({
        message: 'Error running tool (non-fatal)',
        data: { error: 'Order Z9 not found' },
      }),
    })
    expect(logfireReader.toolError?.(failed)).toBe('Order Z9 not found')
  })

  it('OpenAI Agents: the agent a Handoff span hands to continues the run', () => {
    const spans = runner('conv-h', [
      agentRun('tri', 'task', 'triage', 2, 20),
      turn('t1', 'tri', 3, 19, 'triage'),
      responses('m1', 't1', 4, [
        system('Route.'),
        user('Refund A17'),
        calls('h1', 'transfer_to_billing', '{}'),
      ]),
      lf({
        id: 'hand',
        parent: 't1',
        start: 6,
        end: 7,
        template: 'Handoff: {from_agent} → {to_agent}',
        attributes: { from_agent: 'triage', to_agent: 'billing' },
      }),
      agentRun('bil', 'task', 'billing', 21, 60),
      turn('t2', 'bil', 22, 59, 'billing'),
      responses('m2', 't2', 23, [
        system('Billing.'),
        user('Refund A17'),
        calls('h1', 'transfer_to_billing', '{}'),
        toolSaid('h1', '{"assistant": "billing"}'),
        said('Refunded.'),
      ]),
    ])
    const runs = extractAgentRuns(spans)
    expect(runs.map((run) => run.agentName)).toEqual(['triage'])
    expect(runs[0]!.output[0]!.content.content).toBe('Refunded.')
    expect(toolParts(runs[0]!).map((call) => call.toolCallId)).toEqual(['h1'])
  })

  it('OpenAI Agents: agents that follow one another without a handoff are runs of their own', () => {
    const spans = runner(undefined, [
      agentRun('a1', 'task', 'first', 2, 20),
      turn('t1', 'a1', 3, 19, 'first'),
      responses('m1', 't1', 4, [user('Hi'), said('One.')]),
      agentRun('a2', 'task', 'second', 21, 60),
      turn('t2', 'a2', 22, 59, 'second'),
      responses('m2', 't2', 23, [user('Hi again'), said('Two.')]),
    ])
    expect(extractAgentRuns(spans).map((run) => [run.agentName, run.conversationId])).toEqual([
      ['first', undefined],
      ['second', undefined],
    ])
  })
})
