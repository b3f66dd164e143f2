import { describe, expect, it } from 'vitest'
import { scoreMessageSchema, toScoreMessage } from './score-message.ts'
import { scoreSpanId } from './score-span-id.ts'
import { scoreRecordFixture } from './testing/score-record-fixture.ts'
import { tracescoreVersion } from './tracescore-version.ts'

describe('toScoreMessage', () => {
  it('carries the record, a stable id and the schema tag', () => {
    const record = scoreRecordFixture({ traceId: '5B8EFFF798038103D269B633813FC60C', label: 'pass' })
    expect(toScoreMessage(record)).toEqual({
      schema: scoreMessageSchema,
      id: scoreSpanId(record.traceId, record.spanId, record.scorerId),
      traceId: '5b8efff798038103d269b633813fc60c',
      spanId: 'eee19b7ec3c1b174',
      runId: record.runId,
      agentName: 'support-agent',
      agentId: 'support-agent-v2',
      scorerId: 'task-success',
      scorerName: 'Task success',
      scorerKind: 'llm',
      score: 0.82,
      label: 'pass',
      reason: 'Resolved the order query in 2 tool calls',
      judge: record.judge,
      samplingRate: 0.25,
      timestamp: '2025-11-30T10:53:20.123Z',
      timestampMs: 1_764_500_000_123,
      tracescoreVersion,
    })
  })

  it('omits what the record lacks and carries the error of a failed scoring', () => {
    const message = toScoreMessage(
      scoreRecordFixture({
        agentName: undefined,
        agentId: undefined,
        score: undefined,
        reason: undefined,
        judge: undefined,
        samplingRate: undefined,
        error: { type: 'JudgeError', message: 'boom' },
      }),
    )
    expect(Object.keys(message)).not.toContain('score')
    expect(Object.keys(message)).not.toContain('agentName')
    expect(message.error).toEqual({ type: 'JudgeError', message: 'boom' })
    expect(JSON.parse(JSON.stringify(message))).toEqual(message)
  })

  it('flags a score of a run rebuilt from an incomplete trace, and only then', () => {
    expect(toScoreMessage(scoreRecordFixture({ incomplete: true })).incomplete).toBe(true)
    expect(Object.keys(toScoreMessage(scoreRecordFixture()))).not.toContain('incomplete')
    expect(Object.keys(toScoreMessage(scoreRecordFixture({ incomplete: false })))).not.toContain('incomplete')
  })
})
