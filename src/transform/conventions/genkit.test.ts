import { describe, expect, it } from 'vitest'
import type { Attributes, Span } from '../../model/index.ts'
import { detectConvention, extractAgentRuns, findAgentSpans, spanRole } from '../index.ts'
import { toolInvocations } from '../testing/output-steps.ts'
import { sid, span } from '../testing/span-builder.ts'

const scope = { name: 'genkit-tracer', version: 'v1' }
const genkitSpan = (spec: Parameters<typeof span>[0]): Span => ({ ...span(spec), scope })

const action = (subtype: string, name: string, extra: Attributes = {}): Attributes => ({
  'genkit:type': 'action',
  'genkit:metadata:subtype': subtype,
  'genkit:name': name,
  ...extra,
})
const generate = (extra: Attributes = {}): Attributes => ({
  'genkit:type': 'util',
  'genkit:name': 'generate',
  ...extra,
})

const system = { role: 'system', content: [{ text: 'Be brief.' }] }
const user = { role: 'user', content: [{ text: 'Where is A17?' }] }
const request = {
  role: 'model',
  content: [{ toolRequest: { name: 'lookup', input: { id: 'A17' }, ref: 'c1' } }],
}
const response = {
  role: 'tool',
  content: [{ toolResponse: { name: 'lookup', ref: 'c1', output: { status: 'shipped' } } }],
}
const answer = { role: 'model', content: [{ text: 'Shipped.' }] }

/** A flow calling generate: one model turn asks for a tool, the next turn answers. */
function flowTrace(top: Attributes): Span[] {
  return [
    genkitSpan({ id: 'flow', name: 'support', end: 100, attributes: top }),
    genkitSpan({ id: 'g1', parent: 'flow', name: 'generate', start: 1, end: 99, attributes: generate() }),
    genkitSpan({
      id: 'm1',
      parent: 'g1',
      name: 'scripted/model',
      start: 2,
      end: 10,
      attributes: action('model', 'scripted/model', {
        'genkit:input': JSON.stringify({ messages: [system, user] }),
        'genkit:output': JSON.stringify({ message: request, finishReason: 'stop' }),
      }),
    }),
    genkitSpan({
      id: 't1',
      parent: 'g1',
      name: 'lookup',
      start: 11,
      end: 20,
      attributes: action('tool', 'lookup', {
        'genkit:input': '{"id":"A17"}',
        'genkit:output': '{"status":"shipped"}',
      }),
    }),
    genkitSpan({ id: 'g2', parent: 'g1', name: 'generate', start: 21, end: 98, attributes: generate() }),
    genkitSpan({
      id: 'm2',
      parent: 'g2',
      name: 'scripted/model',
      start: 22,
      end: 30,
      attributes: action('model', 'scripted/model', {
        'genkit:input': JSON.stringify({ messages: [system, user, request, response] }),
        'genkit:output': JSON.stringify({ message: answer }),
      }),
    }),
  ]
}

describe('Genkit (genkit:* spans)', () => {
  it('reads a flow that calls a model as the run, with the model spans as its steps', () => {
    const spans = flowTrace(
      action('flow', 'support', {
        'genkit:isRoot': true,
        'genkit:input': '"Where is A17?"',
        'genkit:output': '"Shipped."',
        'genkit:metadata:conversationId': 'conv-1',
      }),
    )
    expect(detectConvention(spans[0]!)).toBe('genkit')
    expect(spans.map(spanRole)).toEqual(['agent', 'other', 'model', 'tool', 'other', 'model'])
    const [run] = extractAgentRuns(spans)
    expect(run).toMatchObject({ agentName: 'support', agentId: 'support', conversationId: 'conv-1' })
    expect(run!.input.systemMessages).toEqual([{ role: 'system', content: 'Be brief.' }])
    expect(run!.input.inputMessages.map((m) => m.content.content)).toEqual(['Where is A17?'])
    // The tool span has no call id: it takes the model's call of that tool (ref c1).
    expect(toolInvocations(run!)).toEqual([
      {
        state: 'result',
        toolCallId: 'c1',
        toolName: 'lookup',
        args: { id: 'A17' },
        result: { status: 'shipped' },
      },
    ])
    expect(run!.output[0]!.content.content).toBe('Shipped.')
    expect(run!.requestContext).toMatchObject({ conversationId: 'conv-1' })
  })

  it('takes a generate called outside any flow as the run', () => {
    const spans = flowTrace(generate()).slice(1)
    spans[0] = genkitSpan({
      id: 'g1',
      name: 'generate',
      start: 1,
      end: 99,
      attributes: generate({
        'genkit:isRoot': true,
        'genkit:input': JSON.stringify({ model: 'scripted/model', messages: [system, user] }),
        'genkit:output': JSON.stringify({ message: answer }),
      }),
    })
    expect(findAgentSpans(spans).map((s) => s.spanId)).toEqual([sid('g1')])
    const [run] = extractAgentRuns(spans)
    expect(run!.input.inputMessages.map((m) => m.content.content)).toEqual(['Where is A17?'])
    expect(run!.output[0]!.content.content).toBe('Shipped.')
  })

  it('does not take a flow that calls no model as a run', () => {
    const spans = [
      genkitSpan({ id: 'outer', name: 'pipeline', end: 200, attributes: action('flow', 'pipeline') }),
      ...flowTrace(action('flow', 'support', { 'genkit:input': '"Where is A17?"' })).map((s, i) =>
        i === 0 ? { ...s, parentSpanId: sid('outer') } : s,
      ),
    ]
    expect(extractAgentRuns(spans).map((run) => run.agentName)).toEqual(['support'])
  })
})
