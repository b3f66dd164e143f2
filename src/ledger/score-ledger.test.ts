/**
 * The score ledger's logic on an in-memory ledger topic (no broker): loading a partition up to
 * the end it had when assigned, dropping revoked partitions, reloading after a rejoin, expiry,
 * compaction gaps, and records that are not entries.
 */
import { describe, expect, it } from 'vitest'
import { silentLogger } from '../ops/logger.ts'
import type { Decision } from '../scoring/score-run.ts'
import { decodeLedgerValue, encodeLedgerValue, ledgerKey } from './ledger-entry.ts'
import { createScoreLedger, type ScoreLedger } from './score-ledger.ts'
import { createMemoryLedgerLog, type MemoryLedgerLog } from './testing/memory-ledger-log.ts'

const logger = silentLogger()
const day = 24 * 60 * 60 * 1000

const decision = (trace: string, score: number): Decision => ({
  traceId: trace,
  spanId: 'b'.repeat(16),
  scorer: 'judged',
  outcome: 'scored',
  record: {
    traceId: trace,
    spanId: 'b'.repeat(16),
    runId: `${trace}-${'b'.repeat(16)}`,
    scorerId: 'judged',
    scorerName: 'judged',
    scorerKind: 'llm',
    score,
    reason: `scored ${score}`,
    judge: { calls: 1, model: 'm', totalTokens: 12 },
    timestampMs: 1_700_000_000_123,
  },
})
const keyOf = (trace: string) => ledgerKey(trace, 'b'.repeat(16), 'judged', '1')
const trace = (n: number) => n.toString(16).padStart(32, '0')

/** One topic shared by several ledgers (instances): each reads it through its own follower. */
function sharedTopic(partitions: number) {
  const records: Map<number, { key: string; value: string }[]> = new Map()
  const instances: { ledger: ScoreLedger; log: MemoryLedgerLog }[] = []
  const make = (clock = { t: 10 * day }) => {
    let ledger: ScoreLedger | undefined
    const log = createMemoryLedgerLog(partitions, () => ledger!.onRecords)
    // Replay what the topic holds into this instance's copy, then mirror its writes to the others.
    for (const [p, rs] of records) void log.write(rs.map((r) => ({ partition: p, ...r })))
    const mirrored: MemoryLedgerLog = {
      ...log,
      async write(rs) {
        for (const r of rs) records.set(r.partition, [...(records.get(r.partition) ?? []), r])
        await Promise.all(instances.map((i) => (i.log === log ? log.write(rs) : i.log.write(rs))))
      },
    }
    ledger = createScoreLedger({ log: mirrored, retentionMs: day, logger, now: () => clock.t, retryMs: 1 })
    instances.push({ ledger, log })
    return { ledger, log }
  }
  return { make }
}

describe('score ledger', () => {
  it('loads an assigned partition up to the end it had, and finds what an earlier instance recorded', async () => {
    const topic = sharedTopic(4)
    const first = topic.make()
    first.ledger.assign([0, 1, 2, 3])
    await first.ledger.loaded([0, 1, 2, 3])
    await first.ledger.record([1], [{ key: keyOf(trace(1)), decision: decision(trace(1), 0.25) }])
    await first.ledger.record([2, 3], [{ key: keyOf(trace(2)), decision: decision(trace(2), 0.5) }])

    // A later instance (a restart) that owns partitions 1 and 3 only.
    const second = topic.make()
    second.ledger.assign([1, 3])
    expect(second.ledger.lookup([1], keyOf(trace(1)))).toBeUndefined() // nothing before it is loaded
    await second.ledger.loaded([1, 3])
    expect(second.ledger.lookup([1], keyOf(trace(1)))).toEqual({
      outcome: 'scored',
      record: decision(trace(1), 0.25).record,
    })
    // A run whose records came from partitions 2 and 3 is found through partition 3.
    expect(second.ledger.lookup([2, 3], keyOf(trace(2)))?.record?.score).toBe(0.5)
    // Only the assigned partitions are read.
    expect([...second.log.following.keys()]).toEqual([1, 3])
    expect(second.ledger.size()).toBe(2)
    expect(second.ledger.lookup([0, 1, 2], keyOf(trace(3)))).toBeUndefined()
  })

  it('drops a revoked partition and reloads it with what another instance wrote meanwhile', async () => {
    const topic = sharedTopic(2)
    const a = topic.make()
    const b = topic.make()
    a.ledger.assign([0, 1])
    await a.ledger.loaded([0, 1])
    await a.ledger.record([0], [{ key: keyOf(trace(1)), decision: decision(trace(1), 0.1) }])
    a.ledger.assign([1]) // partition 0 moves to b
    expect(a.ledger.lookup([0], keyOf(trace(1)))).toBeUndefined()
    b.ledger.assign([0])
    await b.ledger.loaded([0])
    expect(b.ledger.lookup([0], keyOf(trace(1)))?.record?.score).toBe(0.1)
    await b.ledger.record([0], [{ key: keyOf(trace(2)), decision: decision(trace(2), 0.2) }])
    a.ledger.assign([0, 1]) // and back
    await a.ledger.loaded([0])
    expect(a.ledger.lookup([0], keyOf(trace(2)))?.record?.score).toBe(0.2)
    expect(a.ledger.lookup([0], keyOf(trace(1)))?.record?.score).toBe(0.1)
  })

  it('a partition kept across a rejoin is loaded again up to its new end before lookups', async () => {
    const topic = sharedTopic(1)
    const a = topic.make()
    a.ledger.assign([0])
    await a.ledger.loaded([0])
    let loaded = false
    a.ledger.assign([0])
    const waiting = a.ledger.loaded([0]).then(() => {
      loaded = true
    })
    expect(loaded).toBe(false)
    await waiting
    expect(loaded).toBe(true)
    // Not assigned: nothing to wait for.
    await a.ledger.loaded([5])
  })

  it('forgets entries older than the retention, in memory and when loading', async () => {
    const clock = { t: 10 * day }
    const topic = sharedTopic(1)
    const a = topic.make(clock)
    a.ledger.assign([0])
    await a.ledger.loaded([0])
    await a.ledger.record([0], [{ key: keyOf(trace(1)), decision: decision(trace(1), 0.3) }])
    clock.t += day / 2
    await a.ledger.record([0], [{ key: keyOf(trace(2)), decision: decision(trace(2), 0.4) }])
    clock.t += day / 2 + 1
    expect(a.ledger.lookup([0], keyOf(trace(1)))).toBeUndefined()
    expect(a.ledger.lookup([0], keyOf(trace(2)))?.record?.score).toBe(0.4)
    a.ledger.expire()
    expect(a.ledger.size()).toBe(1)
    const b = topic.make(clock)
    b.ledger.assign([0])
    await b.ledger.loaded([0])
    expect(b.ledger.size()).toBe(1)
  })

  it('holds at most maxEntries, forgetting the oldest of the partition written to', async () => {
    let ledger: ScoreLedger | undefined
    const log = createMemoryLedgerLog(2, () => ledger!.onRecords)
    ledger = createScoreLedger({ log, retentionMs: day, maxEntries: 3, logger, now: () => 10 * day })
    ledger.assign([0, 1])
    await ledger.loaded([0, 1])
    for (const n of [1, 2, 3, 4])
      await ledger.record([n % 2], [{ key: keyOf(trace(n)), decision: decision(trace(n), n / 10) }])
    expect(ledger.size()).toBe(3)
    expect(ledger.lookup([0, 1], keyOf(trace(2)))).toBeUndefined() // the oldest of partition 0
    for (const n of [1, 3, 4]) expect(ledger.lookup([0, 1], keyOf(trace(n)))?.record?.score).toBe(n / 10)
    await log.settled() // read back from the topic: still at most 3
    expect(ledger.size()).toBe(3)
  })

  it('loads a compacted partition (offset gaps, tombstones) to its end and skips records that are no entries', async () => {
    let ledger: ScoreLedger | undefined
    const log = createMemoryLedgerLog(1, () => ledger!.onRecords)
    ledger = createScoreLedger({ log, retentionMs: day, logger, now: () => 10 * day })
    const atMs = 10 * day
    await log.write([
      { partition: 0, key: keyOf(trace(1)), value: encodeLedgerValue(decision(trace(1), 0.1), atMs) },
      { partition: 0, key: keyOf(trace(1)), value: encodeLedgerValue(decision(trace(1), 0.9), atMs) },
      { partition: 0, key: keyOf(trace(2)), value: 'not json' },
      { partition: 0, key: keyOf(trace(3)), value: encodeLedgerValue(decision(trace(3), 0.3), atMs) },
    ])
    log.compact()
    expect(log.records(0).map((r) => r.offset)).toEqual(['1', '2', '3'])
    ledger.assign([0])
    await ledger.loaded([0])
    expect(ledger.lookup([0], keyOf(trace(1)))?.record?.score).toBe(0.9)
    expect(ledger.lookup([0], keyOf(trace(2)))).toBeUndefined()
    expect(ledger.size()).toBe(2)
  })

  it('keeps a decision whole through its record value, the score record included', () => {
    const d = {
      ...decision(trace(7), 0.75),
      record: { ...decision(trace(7), 0.75).record!, incomplete: true },
    }
    const decoded = decodeLedgerValue(Buffer.from(encodeLedgerValue(d, 42)))
    expect(decoded).toEqual({ atMs: 42, decision: { outcome: 'scored', record: d.record } })
    expect(decodeLedgerValue('{"atMs":1,"decision":{"outcome":"sampled-out"}}')).toBeUndefined()
    expect(decodeLedgerValue('[')).toBeUndefined()
  })

  it('a failed write rejects and records nothing locally', async () => {
    let ledger: ScoreLedger | undefined
    const log = createMemoryLedgerLog(1, () => ledger!.onRecords)
    ledger = createScoreLedger({ log, retentionMs: day, logger })
    ledger.assign([0])
    await ledger.loaded([0])
    log.failWrites(1)
    await expect(
      ledger.record([0], [{ key: keyOf(trace(1)), decision: decision(trace(1), 1) }]),
    ).rejects.toThrow(/injected/)
    expect(ledger.lookup([0], keyOf(trace(1)))).toBeUndefined()
    await ledger.record([0], [{ key: keyOf(trace(1)), decision: decision(trace(1), 1) }])
    expect(ledger.lookup([0], keyOf(trace(1)))?.record?.score).toBe(1)
  })
})
