import { describe, expect, it } from 'vitest'
import { scoreMessageSchema, toScoreMessage } from './score-message.ts'
import { scoreSpanId } from './score-span-id.ts'
import { lacking, scoreRecordFixture } from './testing/score-record-fixture.ts'
import { tracescoreVersion } from './tracescore-version.ts'

describe('toScoreMessage', () => {
  it('carries the record, a stable id and the schema tag', () => {
    const record = scoreRecordFixture({ traceId: '5B8EFFF798038103D269B633813FC60C', label: 'pass' })
    expect(toScoreMessage(record)).toEqual({
      ...record,
      schema: scoreMessageSchema,
      id: scoreSpanId(record.traceId, record.spanId, record.scorerId),
      traceId: '5b8efff798038103d269b633813fc60c',
      timestamp: '2025-11-30T10:53:20.123Z',
      tracescoreVersion,
    })
  })

  it('omits what the record lacks and carries the error of a failed scoring', () => {
    const message = toScoreMessage(
      scoreRecordFixture({
        ...lacking('agentName', 'agentId', 'score', 'reason', 'judge', 'samplingRate'),
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
