import { describe, expect, it } from 'vitest'
import { evaluationAttributes, scoreLabel, scoreSpanAttributes } from './score-attributes.ts'
import { lacking, scoreRecordFixture } from './testing/score-record-fixture.ts'
import { tracescoreVersion } from './tracescore-version.ts'

describe('scoreLabel', () => {
  it("keeps the scorer's own label over any threshold", () => {
    expect(scoreLabel(scoreRecordFixture({ label: 'relevant' }), 0.99)).toBe('relevant')
  })

  it('maps a score to pass/fail with a global or per-scorer threshold (at the threshold is a pass)', () => {
    expect(scoreLabel(scoreRecordFixture({ score: 0.82 }), 0.82)).toBe('pass')
    expect(scoreLabel(scoreRecordFixture({ score: 0.81 }), 0.82)).toBe('fail')
    expect(scoreLabel(scoreRecordFixture({ score: 0.5 }), { 'task-success': 0.4 })).toBe('pass')
    expect(scoreLabel(scoreRecordFixture({ score: 0.5 }), { 'another-scorer': 0.4 })).toBeUndefined()
  })

  it('gives no label without a threshold or without a score', () => {
    expect(scoreLabel(scoreRecordFixture())).toBeUndefined()
    expect(scoreLabel(scoreRecordFixture({ score: undefined }), 0.5)).toBeUndefined()
  })
})

describe('evaluationAttributes', () => {
  it('maps name, value, label and explanation to the GenAI evaluation keys', () => {
    expect(evaluationAttributes(scoreRecordFixture({ label: 'pass' }))).toEqual({
      'gen_ai.evaluation.name': 'Task success',
      'gen_ai.evaluation.score.value': 0.82,
      'gen_ai.evaluation.score.label': 'pass',
      'gen_ai.evaluation.explanation': 'Resolved the order query in 2 tool calls',
    })
  })

  it('records a failed scoring as error.type with the message as explanation, and no value', () => {
    const record = scoreRecordFixture({
      score: undefined,
      reason: undefined,
      error: { type: 'JudgeParseError', message: 'judge answer was not JSON' },
    })
    expect(evaluationAttributes(record)).toEqual({
      'gen_ai.evaluation.name': 'Task success',
      'gen_ai.evaluation.explanation': 'judge answer was not JSON',
      'error.type': 'JudgeParseError',
    })
  })

  it('drops a non-finite score rather than sending NaN', () => {
    expect(evaluationAttributes(scoreRecordFixture({ score: Number.NaN }))).not.toHaveProperty(
      'gen_ai.evaluation.score.value',
    )
  })
})

describe('scoreSpanAttributes', () => {
  it('adds the tracescore provenance keys and the evaluator span kind', () => {
    expect(scoreSpanAttributes(scoreRecordFixture())).toEqual({
      'gen_ai.evaluation.name': 'Task success',
      'gen_ai.evaluation.score.value': 0.82,
      'gen_ai.evaluation.explanation': 'Resolved the order query in 2 tool calls',
      'openinference.span.kind': 'EVALUATOR',
      'tracescore.scorer.id': 'task-success',
      'tracescore.scorer.name': 'Task success',
      'tracescore.scorer.kind': 'llm',
      'tracescore.run.id': '5b8efff798038103d269b633813fc60c:eee19b7ec3c1b174',
      'tracescore.agent.name': 'support-agent',
      'tracescore.agent.id': 'support-agent-v2',
      'tracescore.sampling.rate': 0.25,
      'tracescore.judge.model': 'openai/gpt-5-mini',
      'tracescore.judge.calls': 2,
      'tracescore.judge.input_tokens': 812,
      'tracescore.judge.output_tokens': 64,
      'tracescore.judge.total_tokens': 876,
      'tracescore.version': tracescoreVersion,
    })
  })

  it('leaves out what the record does not have', () => {
    const attributes = scoreSpanAttributes(
      scoreRecordFixture(lacking('agentName', 'agentId', 'judge', 'samplingRate')),
    )
    expect(Object.keys(attributes).filter((k) => /agent|judge|sampling/.test(k))).toEqual([])
  })

  it('reads the version from package.json', async () => {
    const pkg = await import('../../package.json', { with: { type: 'json' } })
    expect(tracescoreVersion).toBe(pkg.default.version)
  })
})

describe('scoreSpanAttributes for incomplete runs', () => {
  it('marks a score of a run rebuilt from an incomplete trace, and only then', () => {
    expect(scoreSpanAttributes(scoreRecordFixture({ incomplete: true }))['tracescore.run.incomplete']).toBe(
      true,
    )
    expect(scoreSpanAttributes(scoreRecordFixture())).not.toHaveProperty('tracescore.run.incomplete')
  })
})
