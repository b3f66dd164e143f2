import type { ScoreRecord } from '../../model/index.ts'

/** A complete LLM-judged score record for tests; fields can be overridden. */
export function scoreRecordFixture(overrides: Partial<ScoreRecord> = {}): ScoreRecord {
  return {
    traceId: '5b8efff798038103d269b633813fc60c',
    spanId: 'eee19b7ec3c1b174',
    runId: '5b8efff798038103d269b633813fc60c:eee19b7ec3c1b174',
    agentName: 'support-agent',
    agentId: 'support-agent-v2',
    scorerId: 'task-success',
    scorerName: 'Task success',
    scorerKind: 'llm',
    score: 0.82,
    reason: 'Resolved the order query in 2 tool calls',
    judge: { model: 'openai/gpt-5-mini', inputTokens: 812, outputTokens: 64, totalTokens: 876, calls: 2 },
    samplingRate: 0.25,
    timestampMs: 1_764_500_000_123,
    ...overrides,
  }
}

/** Overrides that leave the named optional fields of `scoreRecordFixture` without a value. */
export function lacking(...keys: (keyof ScoreRecord)[]): Partial<ScoreRecord> {
  return Object.fromEntries(keys.map((key) => [key, undefined]))
}
