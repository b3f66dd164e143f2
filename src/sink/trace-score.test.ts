import { describe, expect, it } from 'vitest'
import { scoreRecordFixture } from './testing/score-record-fixture.ts'
import { traceScoresOf } from './trace-score.ts'

const traceId = '5b8efff798038103d269b633813fc60c'
const run = (spanId: string, score: number | undefined, more = {}) =>
  scoreRecordFixture({ spanId, runId: `${traceId}:${spanId}`, score, ...more })

describe('traceScoresOf', () => {
  it('gives a single run its own score, label and reason', () => {
    expect(traceScoresOf([scoreRecordFixture({ label: 'pass' })])).toEqual([
      {
        traceId,
        scorerId: 'task-success',
        scorerName: 'Task success',
        scorerKind: 'llm',
        runs: [
          { span_id: 'eee19b7ec3c1b174', run_id: `${traceId}:eee19b7ec3c1b174`, score: 0.82, label: 'pass' },
        ],
        score: 0.82,
        count: 1,
        label: 'pass',
        explanation: 'Resolved the order query in 2 tool calls',
      },
    ])
  })

  it('gives several runs of one scorer in a trace their mean and count, each run listed', () => {
    const other = traceId.replace('5b', '6c')
    const [task, tools, elsewhere] = traceScoresOf(
      [
        run('00000000000000a2', 0.5),
        run('00000000000000a1', 1),
        run('00000000000000a3', 0.3),
        run('00000000000000a1', 2, { scorerId: 'tool-count', scorerName: 'Tool count', scorerKind: 'code' }),
        scoreRecordFixture({ traceId: other.toUpperCase() }),
      ],
      0.6,
    )
    expect(task).toMatchObject({ traceId, scorerId: 'task-success', count: 3, label: 'pass' })
    expect(task!.score).toBeCloseTo(0.6, 12)
    expect(task!.runs.map((r) => [r.span_id, r.score, r.label])).toEqual([
      ['00000000000000a1', 1, 'pass'],
      ['00000000000000a2', 0.5, 'fail'],
      ['00000000000000a3', 0.3, 'fail'],
    ])
    expect(task!.explanation).toBe(
      'mean of 3 runs: 00000000000000a1: 1, 00000000000000a2: 0.5, 00000000000000a3: 0.3',
    )
    expect(tools).toMatchObject({ scorerId: 'tool-count', scorerKind: 'code', score: 2, count: 1 })
    expect(elsewhere).toMatchObject({ traceId: other, score: 0.82, count: 1 })
  })

  it('keeps a label the scored runs share, and none when they differ and no threshold is set', () => {
    const [same] = traceScoresOf([run('a1', 1, { label: 'ok' }), run('a2', 0, { label: 'ok' })])
    expect(same).toMatchObject({ score: 0.5, label: 'ok' })
    const [differ] = traceScoresOf([run('a1', 1, { label: 'ok' }), run('a2', 0, { label: 'bad' })])
    expect(differ!.label).toBeUndefined()
  })

  it('counts only scored runs in the mean and lists a failed one with its error', () => {
    const [score] = traceScoresOf([
      run('a1', 0.4),
      run('a2', undefined, { error: { type: 'JudgeError', message: 'rate limited' } }),
    ])
    expect(score).toMatchObject({ score: 0.4, count: 1 })
    expect(score!.runs[1]).toEqual({
      span_id: 'a2',
      run_id: `${traceId}:a2`,
      error: 'JudgeError: rate limited',
    })
    expect(score!.explanation).toBe('mean of 1 runs (1 without a score): a1: 0.4, a2: failed')
    const [none] = traceScoresOf([run('a1', undefined, { error: { type: 'E', message: 'm' } })])
    expect(none).toMatchObject({ count: 0, explanation: 'E: m' })
    expect(none!.score).toBeUndefined()
  })

  it('merges the runs recorded before: a late run joins them, a run delivered again replaces its entry', () => {
    const before = [
      { span_id: 'a1', run_id: `${traceId}:a1`, score: 1 },
      { span_id: 'a2', run_id: `${traceId}:a2`, score: 0 },
    ]
    const previous = (t: string, s: string) => (t === traceId && s === 'task-success' ? before : undefined)
    const [late] = traceScoresOf([run('a3', 0.5)], undefined, previous)
    expect(late).toMatchObject({ score: 0.5, count: 3 })
    expect(late!.runs.map((r) => r.span_id)).toEqual(['a1', 'a2', 'a3'])
    const [replayed] = traceScoresOf([run('a1', 1), run('a2', 0)], undefined, previous)
    expect(replayed).toMatchObject({ score: 0.5, count: 2 })
    const [rescored] = traceScoresOf([run('a2', 0.5)], undefined, previous)
    expect(rescored).toMatchObject({ score: 0.75, count: 2 })
  })
})
