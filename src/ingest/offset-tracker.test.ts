import { describe, expect, it } from 'vitest'
import { OffsetTracker } from './offset-tracker.ts'

type Opened = ReturnType<OffsetTracker['open']>

/** Releases `records` in order, then gives the position of partition t/0. */
function positionAfter(tracker: OffsetTracker, ...records: Opened[]): string | undefined {
  for (const record of records) tracker.release(record)
  return tracker.position('t', 0)
}

describe('OffsetTracker', () => {
  it('commits one past the highest offset when every record is finished', () => {
    const tracker = new OffsetTracker()
    for (const offset of ['0', '1', '2']) tracker.release(tracker.open('t', 0, offset))
    expect(tracker.committable()).toEqual([{ topic: 't', partition: 0, offset: '3' }])
  })

  it('never commits past a record still held by an unfinished trace', () => {
    const tracker = new OffsetTracker()
    const r0 = tracker.open('t', 0, '10')
    tracker.hold(r0, 2) // its spans went into two traces
    tracker.release(r0)
    const r1 = tracker.open('t', 0, '11')
    tracker.release(r1)
    expect(tracker.committable()).toEqual([{ topic: 't', partition: 0, offset: '10' }])
    expect(positionAfter(tracker, r0)).toBe('10') // first trace finished
    expect(positionAfter(tracker, r0)).toBe('12') // second trace finished
  })

  it('finishes a later record first without moving the offset past an earlier held one', () => {
    const tracker = new OffsetTracker()
    const a = tracker.open('t', 0, '0')
    const b = tracker.open('t', 0, '1')
    const c = tracker.open('t', 0, '2')
    expect(positionAfter(tracker, c, a)).toBe('1')
    expect(positionAfter(tracker, b)).toBe('3')
  })

  it('keeps partitions and topics apart', () => {
    const tracker = new OffsetTracker()
    tracker.open('t', 0, '5')
    tracker.release(tracker.open('t', 1, '7'))
    tracker.release(tracker.open('u', 0, '2'))
    expect(tracker.committable()).toEqual([
      { topic: 't', partition: 0, offset: '5' },
      { topic: 't', partition: 1, offset: '8' },
      { topic: 'u', partition: 0, offset: '3' },
    ])
  })

  it('offers an offset once it moved, again only after it moves further or a commit failed', () => {
    const tracker = new OffsetTracker()
    tracker.release(tracker.open('t', 0, '0'))
    const first = tracker.committable()
    expect(first).toEqual([{ topic: 't', partition: 0, offset: '1' }])
    expect(tracker.committable()).toEqual(first) // not yet confirmed: offered again
    tracker.committed(first)
    expect(tracker.committable()).toEqual([])
    tracker.release(tracker.open('t', 0, '1'))
    expect(tracker.committable()).toEqual([{ topic: 't', partition: 0, offset: '2' }])
  })

  it('ignores releases of a revoked partition and of an earlier assignment', () => {
    const tracker = new OffsetTracker()
    const old = tracker.open('t', 0, '3')
    tracker.hold(old)
    tracker.revoke('t', 0)
    expect(tracker.committable()).toEqual([])
    const again = tracker.open('t', 0, '3') // the new assignment reads the record again
    expect(positionAfter(tracker, old, old)).toBe('3')
    expect(positionAfter(tracker, again)).toBe('4')
  })

  it('holds a record read again (a retried fetch) without forgetting older held records', () => {
    const tracker = new OffsetTracker()
    const older = tracker.open('t', 0, '7')
    tracker.hold(older)
    tracker.release(older)
    const first = tracker.open('t', 0, '8')
    tracker.release(tracker.open('t', 0, '9'))
    const again = tracker.open('t', 0, '8')
    expect(positionAfter(tracker, first)).toBe('7')
    expect(positionAfter(tracker, older)).toBe('8') // still held by the second reading
    expect(positionAfter(tracker, again)).toBe('10')
    expect(tracker.readPosition('t', 0)).toBe('10')
  })

  it('keeps offset order when a finished record is read again', () => {
    const tracker = new OffsetTracker()
    tracker.release(tracker.open('t', 0, '1'))
    const held = tracker.open('t', 0, '2')
    const reread = tracker.open('t', 0, '1')
    expect(tracker.position('t', 0)).toBe('1')
    expect(positionAfter(tracker, reread)).toBe('2')
    expect(positionAfter(tracker, held)).toBe('3')
  })

  it('handles offsets past 2^31 as exact decimal strings', () => {
    const tracker = new OffsetTracker()
    tracker.release(tracker.open('t', 0, '4294967296'))
    expect(tracker.position('t', 0)).toBe('4294967297')
  })
})
