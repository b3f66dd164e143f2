import { describe, expect, it } from 'vitest'
import type { ScoreRecord } from '../model/index.ts'
import { coalesceDeliveries } from './coalescing-sink.ts'
import type { Sink } from './sink.ts'
import { scoreRecordFixture } from './testing/score-record-fixture.ts'

function recordingSink(fail: () => boolean = () => false) {
  const calls: ScoreRecord[][] = []
  const sink: Sink = {
    name: 'rec',
    async deliver(records) {
      calls.push(records)
      if (fail()) throw new Error('backend down')
    },
    async close() {},
  }
  return { sink, calls }
}

const record = (scorerId: string) => scoreRecordFixture({ scorerId })

describe('coalesceDeliveries', () => {
  it('sends concurrent deliveries as one batch and settles each caller with it', async () => {
    const { sink, calls } = recordingSink()
    const coalesced = coalesceDeliveries(sink, { lingerMs: 20 })
    await Promise.all([coalesced.deliver([record('a')]), coalesced.deliver([record('b'), record('c')])])
    expect(calls).toHaveLength(1)
    expect(calls[0]!.map((r) => r.scorerId)).toEqual(['a', 'b', 'c'])
  })

  it('sends at once when the batch is full', async () => {
    const { sink, calls } = recordingSink()
    const coalesced = coalesceDeliveries(sink, { lingerMs: 60_000, maxRecords: 2 })
    await Promise.all([coalesced.deliver([record('a')]), coalesced.deliver([record('b')])])
    expect(calls).toHaveLength(1)
  })

  it('rejects every caller of a failed batch, so none of their offsets is committed', async () => {
    const { sink } = recordingSink(() => true)
    const coalesced = coalesceDeliveries(sink, { lingerMs: 1 })
    const results = await Promise.allSettled([
      coalesced.deliver([record('a')]),
      coalesced.deliver([record('b')]),
    ])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected'])
  })

  it('flushes what is waiting on close', async () => {
    const { sink, calls } = recordingSink()
    const coalesced = coalesceDeliveries(sink, { lingerMs: 60_000 })
    const delivered = coalesced.deliver([record('a')])
    await coalesced.close()
    await delivered
    expect(calls).toHaveLength(1)
  })
})
