import { describe, expect, it } from 'vitest'
import type { Attributes, Span } from '../model/index.ts'
import { findAgentSpans } from './agent-spans.ts'
import { sid, span } from './testing/span-builder.ts'

const oi = (spec: Parameters<typeof span>[0] & { kind: string }): Span => {
  const { kind, attributes = {}, ...rest } = spec
  return span({ ...rest, attributes: { 'openinference.span.kind': kind, ...attributes } })
}

/** An outer AGENT span with `outer` attributes around an agent whose model call saw "Be brief." / "Hi". */
const trace = (outer: Attributes): Span[] => [
  oi({ id: 'outer', name: 'workflow', kind: 'AGENT', end: 100, attributes: outer }),
  oi({ id: 'inner', parent: 'outer', name: 'support', kind: 'AGENT', start: 1, end: 99 }),
  oi({
    id: 'model',
    parent: 'inner',
    kind: 'LLM',
    start: 2,
    end: 3,
    attributes: {
      'llm.input_messages.0.message.role': 'system',
      'llm.input_messages.0.message.content': 'Be brief.',
      'llm.input_messages.1.message.role': 'user',
      'llm.input_messages.1.message.content': 'Hi',
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.content': 'Hello!',
    },
  }),
]

describe('wrappers (findAgentSpans)', () => {
  it('an agent span holding a run, with no messages and no calls of its own, is a wrapper', () => {
    expect(findAgentSpans(trace({})).map((s) => s.spanId)).toEqual([sid('inner')])
  })

  it('messages that only copy a model call’s prompt and answer are not its own: still a wrapper', () => {
    const lifted = {
      'input.value': '[{"role":"system","content":"Be brief."},{"role":"user","content":"Hi"}]',
      'input.mime_type': 'application/json',
      'output.value': 'Hello!',
      'output.mime_type': 'text/plain',
    }
    expect(findAgentSpans(trace(lifted)).map((s) => s.spanId)).toEqual([sid('inner')])
  })

  it('messages of its own (an input no model call under it saw) make it a run, the outermost of its conversation', () => {
    const own = { 'input.value': 'Plan my trip', 'input.mime_type': 'text/plain', 'output.value': 'Hello!' }
    // One conversation of model calls is one run (issue 27): the inner agent span holds the same
    // model calls, so it is a step of the outer run, not a second run.
    expect(findAgentSpans(trace(own)).map((s) => s.spanId)).toEqual([sid('outer')])
  })
})
