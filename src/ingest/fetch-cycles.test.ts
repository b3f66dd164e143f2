import { describe, expect, it } from 'vitest'
import { FetchCycles } from './fetch-cycles.ts'

describe('FetchCycles', () => {
  it('proves records read up to the start of a fetch once the next fetch from that broker starts', () => {
    const cycles = new FetchCycles()
    expect(cycles.started(1, 1_000)).toBeUndefined() // its batches are not handled yet
    expect(cycles.started(1, 1_100)).toBe(1_000)
    // A fetch whose batches take 5 s to handle proves nothing more until the next one starts.
    expect(cycles.started(1, 6_100)).toBe(1_100)
    expect(cycles.started(1, 6_200)).toBe(6_100)
  })

  it('goes by the broker furthest behind, and knows nothing until each fetching broker completed a fetch', () => {
    const cycles = new FetchCycles()
    cycles.started(1, 1_000)
    expect(cycles.started(1, 1_100)).toBe(1_000)
    expect(cycles.started(2, 1_150)).toBeUndefined() // broker 2's first fetch is under way
    expect(cycles.started(1, 1_200)).toBeUndefined()
    expect(cycles.started(2, 4_000)).toBe(1_100) // broker 2 took 3 s with its batches; 1 is at 1,100
    expect(cycles.started(1, 4_100)).toBe(1_150) // now broker 2 is behind
    expect(cycles.started(2, 4_200)).toBe(1_200)
  })

  it('drops a broker that stopped fetching for this member, and forgets everything on reset', () => {
    const cycles = new FetchCycles(10_000)
    cycles.started(1, 0)
    cycles.started(2, 0)
    cycles.started(1, 100)
    expect(cycles.started(2, 100)).toBe(0)
    for (let t = 200; t <= 10_000; t += 100) cycles.started(1, t)
    expect(cycles.started(1, 10_200)).toBe(10_000) // broker 2 silent for over 10 s: no longer holds it at 0
    cycles.reset()
    expect(cycles.started(1, 10_300)).toBeUndefined()
    expect(cycles.started(1, 10_400)).toBe(10_300)
  })
})
