/**
 * The Kafka broker is stopped (controlled shutdown) at a chosen moment of the consumer's work,
 * stays down 10 s or 60 s, and restarts on its kept data, while `tracescore run` (the CLI, with
 * kafkajs's production retry settings) keeps running. Uses a private broker on its own port
 * (scripts/kafka-start.sh with KAFKA_PORT/KAFKA_DIR), so the shared one is untouched.
 * Proves, for each moment and outage: the same process recovers by itself (replacing a consumer
 * that kafkajs gave up on) and scores every run; offsets never ran ahead of delivery (sampled
 * while the broker was up).
 *
 * Moments: mid-fetch (records streaming in), mid-commit (a commit due as the broker goes),
 * mid-delivery (score exports held in flight by a slow backend), idle (everything consumed, the
 * consumer polling), just-joined (right after the consumer joined its group).
 *
 * Wall time: the ten cases are independent, each on a topic of its own; most of a case is waiting
 * (the outage, the broker's restart, the old member's session), so they run side by side on
 * FAULT_BROKER_LANES private brokers (default 3, on FAULT_BROKER_PORT, +3, +6...), one case per
 * broker at a time, the 60 s outages first: about 5 minutes instead of 13 one after the other.
 * FAULT_BROKER_LANES=1 runs them one by one on one broker.
 */
import { Kafka, logLevel, type Producer } from 'kafkajs'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { type ServiceProcess, startService } from '../helpers/cli.ts'
import { privateBroker } from '../helpers/fault-broker.ts'
import {
  deliveredRuns,
  type OtlpReceiver,
  scoresByRun,
  startOtlpReceiver,
} from '../helpers/fault-otlp-receiver.ts'
import { writeServiceConfig } from '../helpers/fault-process.ts'
import {
  commitViolations,
  groupOffsets,
  makeRuns,
  type Placement,
  produceRuns,
  type RunRecord,
  runKey,
} from '../helpers/fault-traffic.ts'
import { uniqueName } from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

const PORT = Number(process.env.FAULT_BROKER_PORT ?? 29392)
/** Private brokers, one case on each at a time (vitest.config.ts lets as many run concurrently). */
const LANES = Math.max(1, Number(process.env.FAULT_BROKER_LANES ?? 3))
const RUNS = Number(process.env.FAULT_BROKER_RUNS ?? 1_000)
const PARTITIONS = 2
const SCORERS = 2
/**
 * The service's `kafka.sessionTimeoutMs`. After the outage kafkajs rejoins with a new member id,
 * and the coordinator, which reloaded the group with the old member, hands out the partitions
 * only when that member's session expired: with the 30 s default every case spent ~31 s after
 * the broker was back waiting for it. 10 s keeps that path (old member expires, new one joins)
 * at a third of the wait.
 */
const SESSION_TIMEOUT_MS = 10_000

type Moment = 'mid-fetch' | 'mid-commit' | 'mid-delivery' | 'idle' | 'just-joined'
const moments: Moment[] = ['mid-fetch', 'mid-commit', 'mid-delivery', 'idle', 'just-joined']
// The long outages first, so that the short ones fill the lanes at the end.
const cases = [60_000, 10_000].flatMap((downMs) => moments.map((moment) => ({ moment, downMs })))

/** One private broker and a client for it. */
interface Lane {
  broker: ReturnType<typeof privateBroker>
  kafka: Kafka
}

/** Hands out lanes, one case per lane at a time, to the waiting cases in order. */
function lanePool(lanes: Lane[]) {
  const free = [...lanes]
  const waiting: ((lane: Lane) => void)[] = []
  return {
    acquire: (): Promise<Lane> => {
      const lane = free.shift()
      return lane ? Promise.resolve(lane) : new Promise((resolve) => waiting.push(resolve))
    },
    release(lane: Lane) {
      const next = waiting.shift()
      if (next) next(lane)
      else free.push(lane)
    },
  }
}

describe('Kafka broker stopped and restarted under a running service', () => {
  const lanes: Lane[] = Array.from({ length: LANES }, (_, i) => {
    const broker = privateBroker(PORT + 3 * i) // each broker also takes port+1 (controller)
    return {
      broker,
      kafka: new Kafka({ clientId: 'fault-broker', brokers: broker.brokers, logLevel: logLevel.NOTHING }),
    }
  })
  const pool = lanePool(lanes)
  beforeAll(async () => {
    await Promise.all(lanes.map((lane) => lane.broker.start()))
  })
  afterAll(async () => {
    await Promise.all(lanes.map((lane) => lane.broker.destroy()))
  })

  it.concurrent.for(cases)(
    'stopped $moment for $downMs ms: recovers by itself and scores every run',
    async ({ moment, downMs }, { expect }) => {
      const lane = await pool.acquire()
      let receiver: OtlpReceiver | undefined
      let service: ServiceProcess | undefined
      let producer: Producer | undefined
      let sampling = true
      let brokerStopped = false
      try {
        await runCase(lane, moment, downMs)
      } finally {
        sampling = false
        // A case that failed while its broker was down leaves it running for the next one.
        if (brokerStopped) await lane.broker.restart().catch(() => {})
        await service?.kill9()
        await receiver?.close()
        await producer?.disconnect().catch(() => {})
        pool.release(lane)
      }

      async function runCase({ broker, kafka }: Lane, moment: Moment, downMs: number) {
        const topic = uniqueName(`fault-broker-${moment}`)
        const groupId = uniqueName('fault-broker-group')
        const admin = kafka.admin()
        await admin.connect()
        await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }], waitForLeaders: true })
        await admin.disconnect()
        receiver = await startOtlpReceiver()
        const rx = receiver
        const config = writeServiceConfig(uniqueName('fault-broker'), {
          brokers: broker.brokers,
          topic,
          groupId,
          deadLetterTopic: `${topic}-dlq`,
          otlpUrl: rx.url,
          sessionTimeoutMs: SESSION_TIMEOUT_MS,
        })
        const runs = makeRuns(RUNS, 17)
        const delivered = () => deliveredRuns(rx, SCORERS)
        producer = kafka.producer({ retry: { retries: 2, maxRetryTime: 2_000 } })
        await producer.connect()
        // Idle and just-joined stop the broker between two halves of the traffic; the others mid-stream.
        const split = moment === 'idle' ? runs.length / 2 : moment === 'just-joined' ? runs.length / 5 : 0
        const placements = new Map<string, Placement>()
        const produce = async (part: readonly RunRecord[], seconds: number) => {
          const placed = await produceRuns(producer!, topic, part, {
            partitions: PARTITIONS,
            ratePerSec: part.length / seconds,
          })
          for (const [key, p] of placed) placements.set(key, p)
        }
        if (split > 0) await produce(runs.slice(0, split), 1)
        // The service runs with kafkajs's production retry settings, not the test ones vitest's NODE_ENV picks.
        service = await startService(config, { env: { NODE_ENV: 'production' } })
        const pid = service.pid
        const producing = split > 0 ? Promise.resolve() : produce(runs, 25)

        let brokerUp = true
        const samples: { committed: Map<number, number>; delivered: Set<string> }[] = []
        const sampler = (async () => {
          while (sampling) {
            if (brokerUp) {
              const committed = await groupOffsets(kafka, groupId, topic).catch(() => undefined)
              if (committed) samples.push({ committed, delivered: delivered() })
            }
            await new Promise((r) => setTimeout(r, 1_000))
          }
        })()

        await reachMoment(moment, { rx, kafka, groupId, topic, expected: runs.length, split })
        brokerUp = false
        brokerStopped = true
        const stopping = broker.stop()
        if (moment === 'mid-delivery') setTimeout(() => rx.release(), 3_000) // the exports finish while it is down
        await stopping
        const stoppedAt = Date.now()
        const scoresWhenStopped = rx.scores.size
        await new Promise((r) => setTimeout(r, downMs))
        const restarting = Date.now()
        await broker.restart()
        brokerStopped = false
        brokerUp = true
        const restartedAt = Date.now()
        if (split > 0) await produce(runs.slice(split), 10)
        await producing

        await until(
          () => delivered().size >= runs.length,
          300_000,
          () => `all runs scored after the restart (${delivered().size}/${runs.length})`,
          500,
        )
        sampling = false
        await sampler
        expect(service.pid).toBe(pid)
        const recoveredIn = (Date.now() - restartedAt) / 1000

        const byRun = scoresByRun(rx)
        expect(runs.filter((r) => (byRun.get(runKey(r))?.length ?? 0) < SCORERS).map(runKey)).toEqual([])
        for (const s of samples) expect(commitViolations(s.committed, placements, s.delivered)).toEqual([])
        const log = service.output()
        const count = (text: string) => log.split(text).length - 1
        console.log(
          `broker restart [${moment}, down ${downMs / 1000} s]: down ${((restarting - stoppedAt) / 1000).toFixed(1)} s, restart ${((restartedAt - restarting) / 1000).toFixed(1)} s` +
            `; ${scoresWhenStopped} scores before, ${rx.scores.size} after; all ${runs.length} runs scored ` +
            `${recoveredIn.toFixed(1)} s after the broker was back; ${rx.duplicates()} duplicate arrivals; ` +
            `${count('joined the consumer group')} group joins, ${count('kafka consumer crashed')} consumer crashes, ` +
            `${count('replacing it with a new one')} consumer replacements, ${count('offset commit failed')} failed commits; ` +
            `${samples.length} commit samples${replacedBecause(log)}`,
        )
        expect(count('joined the consumer group')).toBeGreaterThanOrEqual(1)
        expect(await service.stop()).toBe(0)
      }
    },
  )
})

/** Why consumers were replaced, from the service's log: the distinct errors, or nothing. */
function replacedBecause(log: string): string {
  const reasons = new Set<string>()
  for (const line of log.split('\n')) {
    if (!line.includes('replacing it with a new one')) continue
    try {
      const err = (JSON.parse(line) as { err?: { type?: string; message?: string } }).err
      reasons.add(`${err?.type}: ${err?.message?.split('\n')[0]?.slice(0, 120)}`)
    } catch {
      // not a JSON log line
    }
  }
  return reasons.size > 0 ? `; replaced because of ${[...reasons].join(' | ')}` : ''
}

/** Waits until the service is at `moment` of its work (then the test stops the broker). */
async function reachMoment(
  moment: Moment,
  ctx: { rx: OtlpReceiver; kafka: Kafka; groupId: string; topic: string; expected: number; split: number },
): Promise<void> {
  const { rx } = ctx
  const scored = (runs: number) => () => deliveredRuns(rx, SCORERS).size >= runs
  switch (moment) {
    case 'just-joined':
      return // the service is ready: it has just joined its group
    case 'idle':
      await until(scored(ctx.split), 120_000, () => `first half scored (${rx.scores.size} scores)`)
      // Committed to the end: nothing left to do but poll.
      await until(
        async () => {
          const committed = await groupOffsets(ctx.kafka, ctx.groupId, ctx.topic)
          return [...committed.values()].reduce((a, b) => a + Math.max(0, b), 0) >= ctx.split
        },
        60_000,
        () => 'first half committed',
      )
      return
    case 'mid-fetch':
      await until(scored(ctx.expected / 5), 120_000, () => `scores before the stop (${rx.scores.size})`)
      return
    case 'mid-commit': {
      await until(scored(ctx.expected / 5), 120_000, () => `scores before the stop (${rx.scores.size})`)
      // A commit just landed; the next is due a commit interval (1 s) later: stop just before it.
      const before = JSON.stringify([...(await groupOffsets(ctx.kafka, ctx.groupId, ctx.topic))])
      await until(
        async () => JSON.stringify([...(await groupOffsets(ctx.kafka, ctx.groupId, ctx.topic))]) !== before,
        30_000,
        () => 'a commit',
        50,
      )
      await new Promise((r) => setTimeout(r, 850))
      return
    }
    case 'mid-delivery':
      await until(scored(ctx.expected / 5), 120_000, () => `scores before the stop (${rx.scores.size})`)
      rx.hold()
      await until(
        () => rx.held() > 0,
        30_000,
        () => 'an export in flight',
      )
      return
  }
}
