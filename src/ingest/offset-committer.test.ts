import { describe, expect, it } from 'vitest'
import { silentLogger } from '../ops/logger.ts'
import type { CommitOffset } from './consumer-port.ts'
import { createOffsetCommitter } from './offset-committer.ts'
import { OffsetTracker } from './offset-tracker.ts'

/** A committer over a tracker with a clock the test moves, and the commits it sent. */
function committerAt(intervalMs: number) {
  const tracker = new OffsetTracker()
  const clock = { ms: 0 }
  const sent: CommitOffset[][] = []
  const committer = createOffsetCommitter({
    tracker,
    commit: async (offsets) => {
      sent.push([...offsets])
    },
    intervalMs,
    logger: silentLogger(),
    now: () => clock.ms,
  })
  return { tracker, clock, sent, committer }
}

/** Lets the commit in progress settle (it is a chain of resolved promises). */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('offset committer', () => {
  it('commits at the interval only, while records are held', async () => {
    const { tracker, clock, sent, committer } = committerAt(1_000)
    const first = tracker.open('t', 0, '0')
    tracker.release(first)
    tracker.open('t', 0, '1') // still held by its trace
    clock.ms = 500
    committer.tick()
    committer.whenCaughtUp()
    await settled()
    expect(sent).toEqual([])
    clock.ms = 1_000
    committer.tick()
    await settled()
    expect(sent).toEqual([[{ topic: 't', partition: 0, offset: '1' }]])
  })

  it('commits as soon as every record read is finished, without waiting for the interval', async () => {
    const { tracker, clock, sent, committer } = committerAt(1_000)
    const ref = tracker.open('t', 0, '0')
    clock.ms = 100
    committer.whenCaughtUp()
    await settled()
    expect(sent).toEqual([]) // the record is still held
    tracker.release(ref)
    clock.ms = 200
    committer.tick() // the interval has not passed
    committer.whenCaughtUp()
    await settled()
    expect(sent).toEqual([[{ topic: 't', partition: 0, offset: '1' }]])
    // Nothing moved since: no commit.
    clock.ms = 300
    committer.whenCaughtUp()
    await settled()
    expect(committer.commits()).toBe(1)
  })

  it('commits when caught up at most once an interval besides the interval commits', async () => {
    const { tracker, clock, sent, committer } = committerAt(1_000)
    for (let offset = 0; offset < 5; offset++) {
      tracker.release(tracker.open('t', 0, String(offset)))
      clock.ms += 100
      committer.tick()
      committer.whenCaughtUp()
      await settled()
    }
    expect(sent.map((c) => c[0]!.offset)).toEqual(['1'])
    clock.ms = 1_100
    committer.whenCaughtUp()
    await settled()
    expect(sent.map((c) => c[0]!.offset)).toEqual(['1', '5'])
  })

  it('never commits when caught up if interval commits are off (a replay)', async () => {
    const { tracker, clock, sent, committer } = committerAt(Number.POSITIVE_INFINITY)
    tracker.release(tracker.open('t', 0, '0'))
    clock.ms = 10_000
    committer.tick()
    committer.whenCaughtUp()
    await settled()
    expect(sent).toEqual([])
  })
})
