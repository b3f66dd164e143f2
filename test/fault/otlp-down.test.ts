/**
 * The OTLP backend goes away for 20 s while agent runs keep arriving. Proves: the same
 * `tracescore run` process (no restart) delivers every score once the backend is back, and no
 * offset is committed over a run whose scores were not delivered (sampled every second).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { type ServiceProcess, startService } from '../helpers/cli.ts'
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
  runKey,
} from '../helpers/fault-traffic.ts'
import { createTopic, testBrokers, testKafka, uniqueName } from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

const RUNS = Number(process.env.FAULT_OTLP_RUNS ?? 3_000)
const OUTAGE_MS = Number(process.env.FAULT_OTLP_OUTAGE_MS ?? 20_000)
const PARTITIONS = 3
const SCORERS = 2

describe('OTLP backend down for a while', () => {
  const kafka = testKafka('fault-otlp')
  let receiver: OtlpReceiver | undefined
  let service: ServiceProcess | undefined
  afterAll(async () => {
    await service?.kill9()
    await receiver?.close()
  })

  it(`delivers every score after a ${OUTAGE_MS / 1000} s outage, offsets held meanwhile, same process`, async () => {
    const topic = uniqueName('fault-otlp')
    const groupId = uniqueName('fault-otlp-group')
    await createTopic(kafka, topic, PARTITIONS)
    receiver = await startOtlpReceiver()
    const rx = receiver
    const config = writeServiceConfig(uniqueName('fault-otlp'), {
      brokers: testBrokers(),
      topic,
      groupId,
      deadLetterTopic: `${topic}-dlq`,
      otlpUrl: rx.url,
    })
    const runs = makeRuns(RUNS, 11)
    const delivered = () => deliveredRuns(rx, SCORERS)

    service = await startService(config)
    const pid = service.pid
    const producer = kafka.producer()
    await producer.connect()
    let produced = 0
    const producing = produceRuns(producer, topic, runs, {
      partitions: PARTITIONS,
      ratePerSec: RUNS / 40,
      onBatch: (n) => {
        produced = n
      },
    })

    await until(
      () => rx.scores.size >= 400,
      60_000,
      () => `scores before the outage (${rx.scores.size})`,
    )
    await rx.down()
    const downAt = Date.now()
    const scoresAtDown = rx.scores.size
    const samples: { committed: Map<number, number>; delivered: Set<string> }[] = []
    while (Date.now() - downAt < OUTAGE_MS) {
      samples.push({ committed: await groupOffsets(kafka, groupId, topic), delivered: delivered() })
      await new Promise((r) => setTimeout(r, 1_000))
    }
    const producedDuringOutage = produced
    const committedAtUp = await groupOffsets(kafka, groupId, topic)
    const upAt = Date.now()
    await rx.up()
    expect(rx.scores.size).toBe(scoresAtDown)

    const placements: Map<string, Placement> = await producing
    await producer.disconnect()
    await until(
      () => delivered().size >= runs.length,
      120_000,
      () => `all runs scored after the outage (${delivered().size}/${runs.length})`,
      500,
    )
    // The process that lived through the outage is the one that delivered: no restart.
    expect(service.pid).toBe(pid)
    expect(await service.metric('tracescore_sink_deliveries_total')).toBeGreaterThan(0)

    const byRun = scoresByRun(rx)
    expect(runs.filter((r) => (byRun.get(runKey(r))?.length ?? 0) < SCORERS).map(runKey)).toEqual([])
    // Offsets held: during the outage no commit covered a run whose scores had not arrived.
    for (const s of samples) expect(commitViolations(s.committed, placements, s.delivered)).toEqual([])
    const heldBack = [...placements.values()].filter(
      (p) => p.producedAt <= upAt && p.offset >= (committedAtUp.get(p.partition) ?? -1),
    ).length
    console.log(
      `OTLP down ${OUTAGE_MS / 1000} s: ${producedDuringOutage} runs produced by the end of the outage, ` +
        `${heldBack} of them uncommitted when it came back, ${rx.duplicates()} duplicate arrivals, ` +
        `${samples.length} commit samples during the outage`,
    )
    // The outage mattered: runs were waiting on it, and their offsets were held.
    expect(heldBack).toBeGreaterThan(0)
    expect(await service.stop()).toBe(0)
  })
})
