import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { scoreSpanId } from './score-span-id.ts'

const trace = '5b8efff798038103d269b633813fc60c'
const agent = 'eee19b7ec3c1b174'

describe('scoreSpanId', () => {
  it('is the first 8 bytes of SHA-256(trace/agent/scorer) as lowercase hex', () => {
    const expected = createHash('sha256').update(`${trace}/${agent}/relevance`).digest('hex').slice(0, 16)
    expect(scoreSpanId(trace, agent, 'relevance')).toBe(expected)
    expect(scoreSpanId(trace, agent, 'relevance')).toMatch(/^[0-9a-f]{16}$/)
  })

  it('gives the same id on a replay, whatever the case of the hex input', () => {
    expect(scoreSpanId(trace.toUpperCase(), agent.toUpperCase(), 'relevance')).toBe(
      scoreSpanId(trace, agent, 'relevance'),
    )
  })

  it('differs per scorer, per agent span and per trace', () => {
    const ids = new Set([
      scoreSpanId(trace, agent, 'relevance'),
      scoreSpanId(trace, agent, 'toxicity'),
      scoreSpanId(trace, 'eee19b7ec3c1b175', 'relevance'),
      scoreSpanId('5b8efff798038103d269b633813fc60d', agent, 'relevance'),
    ])
    expect(ids.size).toBe(4)
  })

  it('never returns the all-zero (invalid) span id', () => {
    for (let i = 0; i < 2000; i++)
      expect(scoreSpanId(trace, agent, `scorer-${i}`)).not.toBe('0000000000000000')
  })
})
