import { describe, expect, it } from 'vitest'
import { until as untilWithin } from '../../test/helpers/poll.ts'
import { createDeliveryQueue, type DeliveryOutcome, type DeliveryTarget } from './delivery-queue.ts'

const until = (condition: () => boolean) => untilWithin(condition, 5_000, () => 'the condition')

/** Real 1 ms waits: retries never spin without letting timers run. */
const shortWait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A queue of numbered traces whose `process` counts its calls; outcomes are collected. */
function queueWith(
  targets: DeliveryTarget<string>[],
  options: { retries?: number; attemptTimeoutMs?: number } = {},
) {
  const processed: number[] = []
  const outcomes: { trace: number; outcome: DeliveryOutcome; error?: unknown }[] = []
  const queue = createDeliveryQueue<number, string>({
    process: async (trace) => {
      processed.push(trace)
      return `scores of ${trace}`
    },
    targets,
    maxInFlight: 4,
    policy: {
      retries: options.retries ?? Infinity,
      initialDelayMs: 1,
      maxDelayMs: 1,
      multiplier: 1,
      jitter: 0,
    },
    attemptTimeoutMs: options.attemptTimeoutMs,
    sleep: shortWait,
    onDone: (trace, outcome, error) => outcomes.push({ trace, outcome, error }),
  })
  return { queue, processed, outcomes }
}

describe('delivery queue', () => {
  it('gives a trace up as undeliverable when a bounded policy runs out, having processed it once', async () => {
    let attempts = 0
    const { queue, processed, outcomes } = queueWith(
      [
        {
          name: 'down',
          deliver: () => {
            attempts++
            throw new Error('backend down')
          },
        },
      ],
      { retries: 3 },
    )
    queue.push([1])
    await queue.drained()
    expect(processed).toEqual([1])
    expect(attempts).toBe(4)
    expect(outcomes).toMatchObject([{ trace: 1, outcome: 'undeliverable' }])
    expect((outcomes[0]!.error as Error).message).toBe('backend down')
  })

  it('abandons deliveries still retried when stopped (their offsets wait), and starts no waiting trace', async () => {
    const { queue, processed, outcomes } = queueWith([
      {
        name: 'down',
        deliver: () => {
          throw new Error('down')
        },
      },
    ])
    queue.push([1, 2, 3, 4, 5, 6])
    await new Promise((r) => setTimeout(r, 20))
    queue.stop()
    await queue.drained()
    expect(processed).toEqual([1, 2, 3, 4])
    expect(outcomes.map((o) => o.outcome)).toEqual(['abandoned', 'abandoned', 'abandoned', 'abandoned'])
    expect(queue.waiting()).toBe(2)
  })

  it('counts an attempt that never settles as failed and retries it', async () => {
    let calls = 0
    const { queue, processed, outcomes } = queueWith(
      [{ name: 'hangs once', deliver: () => (++calls === 1 ? new Promise<void>(() => {}) : undefined) }],
      { attemptTimeoutMs: 10 },
    )
    queue.push([7])
    await queue.drained()
    expect(calls).toBe(2)
    expect(processed).toEqual([7])
    expect(outcomes).toMatchObject([{ trace: 7, outcome: 'delivered' }])
  })

  it('drops waiting traces on request and returns them', async () => {
    const { queue, outcomes } = queueWith([
      { name: 'slow', deliver: () => new Promise((r) => setTimeout(r, 5)) },
    ])
    queue.push([1, 2, 3, 4, 5, 6, 7])
    expect(queue.drop((t) => t % 2 === 0).sort()).toEqual([6])
    await queue.drained()
    expect(outcomes.map((o) => o.trace).sort()).toEqual([1, 2, 3, 4, 5, 7])
  })

  it('holds deliveries during a rebalance; after it, revoked traces deliver nothing and the others are delivered', async () => {
    const delivered: string[] = []
    const { queue, outcomes, processed } = queueWith([
      { name: 'sink', deliver: (r) => void delivered.push(r) },
    ])
    queue.hold(60_000)
    queue.push([1, 2, 3])
    await until(() => processed.length === 3)
    await shortWait(20)
    // Scored, not delivered: the member may be losing their partitions.
    expect(delivered).toEqual([])
    queue.release((trace) => trace === 2)
    await queue.drained()
    expect(delivered.sort()).toEqual(['scores of 1', 'scores of 3'])
    expect(outcomes.find((o) => o.trace === 2)?.outcome).toBe('revoked')
    expect(
      outcomes
        .filter((o) => o.outcome === 'delivered')
        .map((o) => o.trace)
        .sort(),
    ).toEqual([1, 3])
  })

  it('a revoked trace whose delivery is being retried stops retrying; a hold ends by itself after its longest', async () => {
    let down = true
    const attempts = new Map<string, number>()
    const { queue, outcomes } = queueWith([
      {
        name: 'flaky',
        deliver: (r) => {
          attempts.set(r, (attempts.get(r) ?? 0) + 1)
          if (down) throw new Error('backend down')
        },
      },
    ])
    queue.push([1, 2])
    await until(() => (attempts.get('scores of 1') ?? 0) >= 3 && (attempts.get('scores of 2') ?? 0) >= 3)
    queue.release((trace) => trace === 1)
    await until(() => outcomes.some((o) => o.trace === 1))
    expect(outcomes).toEqual([{ trace: 1, outcome: 'revoked' }])
    // A hold that no join ends lets deliveries go on after maxMs.
    queue.hold(30)
    down = false
    await queue.drained()
    expect(outcomes.map((o) => [o.trace, o.outcome])).toEqual([
      [1, 'revoked'],
      [2, 'delivered'],
    ])
  })
})
