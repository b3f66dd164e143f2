import { describe, expect, it } from 'vitest'
import type { AgentRun, Attributes, Span } from '../../model/index.ts'
import { extractAgentRuns, findAgentSpans } from '../index.ts'
import { sid, span } from '../testing/span-builder.ts'

const scope = { name: 'openinference.instrumentation.openai_agents', version: '2.6.0' }

/** An OpenInference span as the OpenAI Agents SDK instrumentation writes it. */
function oi(spec: Parameters<typeof span>[0] & { kind: string }): Span {
  const { kind, attributes = {}, ...rest } = spec
  return { ...span({ ...rest, attributes: { 'openinference.span.kind': kind, ...attributes } }), scope }
}

function llm(id: string, parent: string, start: number, input: string[], output: Attributes): Span {
  const attributes: Attributes = { ...output }
  input.forEach((text, index) => {
    attributes[`llm.input_messages.${index}.message.role`] = index === 0 ? 'system' : 'user'
    attributes[`llm.input_messages.${index}.message.content`] = text
  })
  return oi({ id, parent, start, end: start + 1, kind: 'LLM', name: 'response', attributes })
}

const callOutput = (id: string, name: string, args: string): Attributes => ({
  'llm.output_messages.0.message.role': 'assistant',
  'llm.output_messages.0.message.tool_calls.0.tool_call.id': id,
  'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': name,
  'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': args,
})
const textOutput = (text: string): Attributes => ({
  'llm.output_messages.0.message.role': 'assistant',
  'llm.output_messages.0.message.content': text,
})

/** The AGENT span of one agent under the workflow chain. */
function agent(id: string, name: string, start: number, end: number, extra: Attributes = {}): Span {
  return oi({
    id,
    parent: 'wfc',
    name,
    kind: 'AGENT',
    start,
    end,
    attributes: { 'agent.name': name, ...extra },
  })
}

/** `Agent workflow` AGENT → workflow CHAIN → the agents, as one `Runner.run` records them. */
function workflow(agents: Span[]): Span[] {
  return [
    oi({ id: 'wfa', name: 'Agent workflow', kind: 'AGENT', end: 1_000 }),
    oi({ id: 'wfc', parent: 'wfa', name: 'Agent workflow', kind: 'CHAIN', start: 1, end: 999 }),
    ...agents,
  ]
}

function toolNames(run: AgentRun): string[] {
  return run.output[0]!.content.parts.flatMap((part) =>
    part.type === 'tool-invocation' ? [part.toolInvocation.toolName] : [],
  )
}

describe('OpenAI Agents SDK (OpenInference)', () => {
  it('one Runner.run is one run: the workflow wrapper with no messages of its own is not a run', () => {
    const spans = workflow([
      agent('ag', 'support', 2, 990),
      llm('m1', 'ag', 3, ['Be brief.', 'Hi'], textOutput('Hello!')),
    ])
    const runs = extractAgentRuns(spans)
    expect(runs.map((run) => [run.spanId, run.agentName])).toEqual([[sid('ag'), 'support']])
    expect(runs[0]!.output[0]!.content.content).toBe('Hello!')
  })

  it('a handoff chain is one run, from the input to the last agent’s answer, with every agent’s tool calls', () => {
    const spans = workflow([
      agent('tri', 'triage', 2, 20),
      llm('m1', 'tri', 3, ['Route.', 'Refund A17'], callOutput('call_h', 'transfer_to_billing', '{}')),
      oi({
        id: 'hand',
        parent: 'tri',
        name: 'handoff to billing',
        kind: 'TOOL',
        start: 5,
        end: 6,
        attributes: { 'input.value': 'triage', 'output.value': 'billing' },
      }),
      agent('bil', 'billing', 21, 90, { 'graph.node.parent_id': 'triage' }),
      llm('m2', 'bil', 22, ['Bill.', 'Refund A17'], callOutput('call_r', 'refund', '{"orderId":"A17"}')),
      oi({
        id: 'ref',
        parent: 'bil',
        name: 'refund',
        kind: 'TOOL',
        start: 24,
        end: 25,
        attributes: {
          'tool.name': 'refund',
          'input.value': '{"orderId":"A17"}',
          'output.value': '{"ok":true}',
        },
      }),
      llm('m3', 'bil', 26, ['Bill.', 'Refund A17'], textOutput('Refunded.')),
    ])
    const runs = extractAgentRuns(spans)
    expect(runs).toHaveLength(1)
    expect(runs[0]!.agentName).toBe('triage')
    expect(runs[0]!.input.systemMessages).toEqual([{ role: 'system', content: 'Route.' }])
    expect(toolNames(runs[0]!)).toEqual(['transfer_to_billing', 'refund'])
    expect(runs[0]!.output[0]!.content.content).toBe('Refunded.')
  })

  it('two Runner.run calls under one trace stay two runs (the second names no agent it came from)', () => {
    const spans = workflow([
      agent('a1', 'support', 2, 20),
      llm('m1', 'a1', 3, ['Be brief.', 'Hi'], textOutput('Hello!')),
      agent('a2', 'support', 21, 40),
      llm('m2', 'a2', 22, ['Be brief.', 'Bye'], textOutput('Goodbye!')),
    ])
    expect(findAgentSpans(spans).map((s) => s.spanId)).toEqual([sid('a1'), sid('a2')])
  })

  it('a tool error is the tool’s own message, not the SDK envelope around it', () => {
    const spans = workflow([
      agent('ag', 'support', 2, 990),
      llm('m1', 'ag', 3, ['Be brief.', 'Where is Z99?'], callOutput('call_e', 'lookup', '{"id":"Z99"}')),
      {
        ...oi({
          id: 't',
          parent: 'ag',
          name: 'lookup',
          kind: 'TOOL',
          start: 5,
          end: 6,
          attributes: { 'tool.name': 'lookup' },
        }),
        status: {
          code: 2,
          message: `Error running tool (non-fatal): {'tool_name': 'lookup', 'error': "Order Z99 can't be found"}`,
        },
      },
      llm('m2', 'ag', 7, ['Be brief.', 'Where is Z99?'], textOutput('Sorry.')),
    ])
    const [run] = extractAgentRuns(spans)
    const part = run!.output[0]!.content.parts.find((p) => p.type === 'tool-invocation')
    expect(part).toMatchObject({
      toolInvocation: { state: 'output-error', errorText: "Order Z99 can't be found" },
    })
  })
})

describe('OpenAI Agents JS (@openai/agents, OpenInference)', () => {
  const jsScope = { name: '@arizeai/openinference-instrumentation-openai-agents', version: '0.2.15' }
  const js = (s: Span): Span => ({ ...s, scope: jsScope })
  const lifted = {
    'input.value': '[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}]',
    'input.mime_type': 'application/json',
    'output.value': 'Hello!',
  }
  /** The JS processor's trace span carries the first prompt and last answer; agents have `graph.node.id`, no agent name. */
  const trace = (wrapper: Attributes) => [
    js(oi({ id: 'wfa', name: 'Agent workflow', kind: 'AGENT', end: 1_000, attributes: wrapper })),
    js(oi({ id: 'wfc', parent: 'wfa', name: 'Agent workflow', kind: 'CHAIN', start: 1, end: 999 })),
    js(
      oi({
        id: 'ag',
        parent: 'wfc',
        name: 'support',
        kind: 'AGENT',
        start: 2,
        end: 990,
        attributes: { 'graph.node.id': 'support' },
      }),
    ),
    js(llm('m1', 'ag', 3, ['Be brief.', 'Hi'], textOutput('Hello!'))),
  ]

  it('one run() is one run: the trace span is a wrapper though it carries copies of the messages', () => {
    const runs = extractAgentRuns(trace(lifted))
    expect(runs.map((run) => [run.spanId, run.agentName])).toEqual([[sid('ag'), 'support']])
    expect(runs[0]!.input.inputMessages.map((m) => m.content.content)).toEqual(['Hi'])
  })

  it('the trace span stays a wrapper when its attributes are cut short', () => {
    expect(
      findAgentSpans(trace({ 'input.value': '[{"ro', 'output.value': 'Hel' })).map((s) => s.spanId),
    ).toEqual([sid('ag')])
  })

  it('a tool error is the message inside the JSON envelope, without the Error toString prefix', () => {
    const spans = [
      ...trace(lifted).slice(0, 3),
      js(llm('m1', 'ag', 3, ['Be brief.', 'Hi'], callOutput('c1', 'lookup', '{"id":"Z9"}'))),
      js(
        oi({
          id: 'tool',
          parent: 'ag',
          name: 'lookup',
          kind: 'TOOL',
          start: 5,
          end: 6,
          error: 'Error running tool (non-fatal): {"tool_name":"lookup","error":"Error: Order Z9 not found"}',
          attributes: { 'tool.name': 'lookup', 'input.value': '{"id":"Z9"}' },
        }),
      ),
      js(llm('m2', 'ag', 7, ['Be brief.', 'Hi'], textOutput('Sorry.'))),
    ]
    const [run] = extractAgentRuns(spans)
    const part = run!.output[0]!.content.parts.find((p) => p.type === 'tool-invocation')
    expect(part?.type === 'tool-invocation' && part.toolInvocation).toMatchObject({
      state: 'output-error',
      errorText: 'Order Z9 not found',
    })
  })
})
