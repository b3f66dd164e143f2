import { describe, expect, it } from 'vitest'
import { span } from '../testing/span-builder.ts'
import { agentNameOf } from './generic.ts'

describe('agentNameOf', () => {
  it("takes the span name of a span whose type attribute says it is an agent's", () => {
    expect(
      agentNameOf(
        span({ id: 'a', name: 'billing-bot', attributes: { 'langfuse.observation.type': 'agent' } }),
      ),
    ).toBe('billing-bot')
    // MLflow writes its attributes as JSON values.
    expect(
      agentNameOf(span({ id: 'a', name: 'support_agent', attributes: { 'mlflow.spanType': '"AGENT"' } })),
    ).toBe('support_agent')
  })

  it('takes no name from a span of another type, a generic span name, or a name with spaces', () => {
    expect(
      agentNameOf(
        span({ id: 'a', name: 'billing-bot', attributes: { 'langfuse.observation.type': 'generation' } }),
      ),
    ).toBe(undefined)
    expect(agentNameOf(span({ id: 'a', name: 'invoke_agent', attributes: { 'span.type': 'agent' } }))).toBe(
      undefined,
    )
    expect(
      agentNameOf(span({ id: 'a', name: 'handle the request', attributes: { 'span.type': 'agent' } })),
    ).toBe(undefined)
    expect(agentNameOf(span({ id: 'a', name: 'billing-bot', attributes: { 'agent.kind': 'agent' } }))).toBe(
      undefined,
    )
  })

  it('prefers a key that names the agent', () => {
    expect(
      agentNameOf(
        span({
          id: 'a',
          name: 'run_loop',
          attributes: { 'mlflow.spanType': '"AGENT"', 'gen_ai.agent.name': 'billing' },
        }),
      ),
    ).toBe('billing')
  })
})
