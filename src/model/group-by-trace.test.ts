import { describe, expect, it } from 'vitest'
import { groupByTrace } from './group-by-trace.ts'

describe('groupByTrace', () => {
  it('groups by trace id, traces in first-seen order, spans in arrival order', () => {
    const spans = [
      { traceId: 'b', spanId: '1' },
      { traceId: 'a', spanId: '2' },
      { traceId: 'b', spanId: '3' },
    ]
    expect([...groupByTrace(spans)]).toEqual([
      ['b', [spans[0], spans[2]]],
      ['a', [spans[1]]],
    ])
  })

  it('reads the id of spans of another shape through traceIdOf', () => {
    const sdkSpans = [{ context: { id: 'x' } }, { context: { id: 'y' } }, { context: { id: 'x' } }]
    const grouped = groupByTrace(sdkSpans, (span) => span.context.id)
    expect([...grouped.keys()]).toEqual(['x', 'y'])
    expect(grouped.get('x')).toEqual([sdkSpans[0], sdkSpans[2]])
  })
})
