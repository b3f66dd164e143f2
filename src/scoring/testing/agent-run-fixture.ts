import type { AgentRun } from '../../model/index.ts'

/** An agent run for scoring tests (no messages, service `shop`); fields can be overridden. */
export function agentRunFixture(overrides: Partial<AgentRun> = {}): AgentRun {
  return {
    traceId: '5b8efff798038103d269b633813fc60c',
    spanId: 'eee19b7ec3c1b174',
    agentName: 'support',
    agentId: 'agt_1',
    convention: 'genai',
    status: 'ok',
    startTimeUnixNano: '1',
    endTimeUnixNano: '2',
    input: { inputMessages: [], rememberedMessages: [], systemMessages: [], taggedSystemMessages: {} },
    output: [],
    requestContext: { 'service.name': 'shop' },
    ...overrides,
  }
}
