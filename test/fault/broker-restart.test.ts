/**
 * The Kafka broker is stopped mid-stream (controlled shutdown), stays down ~10 s, and restarts
 * on its kept data, while `tracescore run` (the CLI) keeps running. Uses a private broker on its
 * own port (scripts/kafka-start.sh with KAFKA_PORT/KAFKA_DIR), so the shared one is untouched.
 * Proves: the same process recovers by itself and scores every run; offsets never ran ahead of
 * delivery (sampled while the broker was up).
 */
import { Kafka, logLevel } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uniqueName } from '../../src/ingest/testing/broker.ts'
import { privateBroker } from '../helpers/fault-broker.ts'
import {
  deliveredRuns,
  type OtlpReceiver,
  scoresByRun,
  startOtlpReceiver,
} from '../helpers/fault-otlp-receiver.ts'
import { type ServiceProcess, startService, writeServiceConfig } from '../helpers/fault-process.ts'
import {
  commitViolations,
  groupOffsets,
  makeRuns,
  type Placement,
  produceRuns,
  runKey,
  until,
} from '../helpers/fault-traffic.ts'

const PORT = Number(process.env.FAULT_BROKER_PORT ?? 29392)
const RUNS = Number(process.env.FAULT_BROKER_RUNS ?? 2_000)
const DOWN_MS = 10_000
const PARTITIONS = 2
const SCORERS = 2

describe('Kafka broker stopped and restarted mid-stream', () => {
  const broker = privateBroker(PORT)
  const kafka = new Kafka({ clientId: 'fault-broker', brokers: broker.brokers, logLevel: logLevel.NOTHING })
  let receiver: OtlpReceiver | undefined
  let service: ServiceProcess | undefined
  beforeAll(async () => {
    await broker.start()
  })
  afterAll(async () => {
    await service?.kill9()
    await receiver?.close()
    await broker.destroy()
  })

  it('recovers by itself and scores every run', async () => {
    const topic = uniqueName('fault-broker')
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
    })
    const runs = makeRuns(RUNS, 17)
    const delivered = () => deliveredRuns(rx, SCORERS)
    service = await startService(config)
    const pid = service.pid

    const producer = kafka.producer({ retry: { retries: 2, maxRetryTime: 2_000 } })
    await producer.connect()
    let brokerUp = true
    const producing = produceRuns(producer, topic, runs, { partitions: PARTITIONS, ratePerSec: RUNS / 45 })
    const samples: { committed: Map<number, number>; delivered: Set<string> }[] = []
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        if (brokerUp) {
          const committed = await groupOffsets(kafka, groupId, topic).catch(() => undefined)
          if (committed) samples.push({ committed, delivered: delivered() })
        }
        await new Promise((r) => setTimeout(r, 1_000))
      }
    })()

    await until(
      () => rx.scores.size >= 300,
      90_000,
      () => `scores before the broker stops (${rx.scores.size})`,
    )
    brokerUp = false
    await broker.stop()
    const stoppedAt = Date.now()
    const scoresWhenStopped = rx.scores.size
    await new Promise((r) => setTimeout(r, DOWN_MS))
    const downFor = Date.now() - stoppedAt
    await broker.restart()
    brokerUp = true
    const restartedAt = Date.now()

    const placements: Map<string, Placement> = await producing
    await producer.disconnect()
    await until(
      () => delivered().size >= runs.length,
      180_000,
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
      `service log: ${count('joined the consumer group')} group joins, ${count('kafka consumer crashed')} consumer crashes, ` +
        `${count('score delivery failed')} failed deliveries, ${count('offset commit failed')} failed commits`,
    )
    expect(count('joined the consumer group')).toBeGreaterThanOrEqual(1)
    console.log(
      `broker restart: down ${(downFor / 1000).toFixed(1)} s (+ its restart); ${scoresWhenStopped} scores before, ` +
        `${rx.scores.size} after; ${rx.duplicates()} duplicate arrivals; all scored ${recoveredIn.toFixed(1)} s after ` +
        `the broker was back; ${samples.length} commit samples`,
    )
    expect(await service.stop()).toBe(0)
  })
})
