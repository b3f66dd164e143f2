/**
 * Three `tracescore run` instances in one group with the score ledger on, scoring a stream with an
 * LLM judge (the scripted judge in this process, a new random score per request, requests counted
 * per (run, scorer)); one is killed -9 and a fourth is added mid-stream: two rebalances move
 * partitions between instances. Every run is scored, no score span ever arrives with another
 * value, and a run is judged twice only when its judge request was under way as the kill hit or
 * as a rebalance moved its partition (a window around each fault, measured here).
 *
 * Scale: 1,200 runs (5 spans each) over 6 partitions at 20 runs/s (FAULT_REBALANCE_RUNS).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { type ServiceProcess, startService } from '../helpers/cli.ts'
import type { FaultJudge } from '../helpers/fault-judge.ts'
import {
  type FaultWindow,
  JUDGE_STEPS,
  judgedScorerPreamble,
  repeatedRequests,
  startCountingJudge,
  unexplainedRepeats,
} from '../helpers/fault-ledger.ts'
import { deliveredRuns, type OtlpReceiver, startOtlpReceiver } from '../helpers/fault-otlp-receiver.ts'
import { writeServiceConfig } from '../helpers/fault-process.ts'
import { groupOffsets, makeRuns, produceRuns, runKey } from '../helpers/fault-traffic.ts'
import { createTopic, testBrokers, testKafka, uniqueName } from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

const RUNS = Number(process.env.FAULT_REBALANCE_RUNS ?? 1_200)
const RATE = 20
const PARTITIONS = 6
const SESSION_MS = 10_000
const SCORERS = ['answered', 'judged']
/** A judge request made this long before a fault ended may be made again (it was under way). */
const IN_FLIGHT_WINDOW_MS = 5_000

describe('score ledger across rebalances', () => {
  const kafka = testKafka('fault-ledger-rebalance')
  let receiver: OtlpReceiver | undefined
  let judge: FaultJudge | undefined
  const services: ServiceProcess[] = []
  afterAll(async () => {
    await Promise.all(services.map((s) => s.kill9()))
    await receiver?.close()
    await judge?.close()
  })

  it(`three instances, one killed and one added mid-stream (${RUNS} runs): every run scored, no score changed, repeats only at the faults`, async () => {
    const topic = uniqueName('fault-ledger-rebalance')
    const groupId = uniqueName('fault-ledger-rebalance-group')
    await createTopic(kafka, topic, PARTITIONS)
    receiver = await startOtlpReceiver()
    judge = await startCountingJudge()
    const rx = receiver
    const config = writeServiceConfig(uniqueName('fault-ledger-rebalance'), {
      brokers: testBrokers(),
      topic,
      groupId,
      deadLetterTopic: `${topic}-dlq`,
      otlpUrl: rx.url,
      sessionTimeoutMs: SESSION_MS,
      preamble: judgedScorerPreamble,
      scorers: '{ answered: { scorer: answeredScorer }, judged: { scorer: judged } }',
      judges: '{ defaultLimits: { concurrency: 16 }, timeoutMs: 10000 }',
      ledger: '{ enabled: true }',
    })
    const env = { FAULT_JUDGE_URL: judge.baseURL }
    services.push(...(await Promise.all([0, 1, 2].map(() => startService(config, { env })))))

    const runs = makeRuns(RUNS, 21)
    const producer = kafka.producer()
    await producer.connect()
    let produced = 0
    const producing = produceRuns(producer, topic, runs, {
      partitions: PARTITIONS,
      ratePerSec: RATE,
      onBatch: (n) => {
        produced = n
      },
    })
    const faults: FaultWindow[] = []
    // A third of the way: kill one instance; its partitions move when its session expired.
    await until(
      () => produced >= RUNS / 3,
      120_000,
      () => `producing (${produced})`,
    )
    const killedAt = Date.now()
    await services[0]!.kill9()
    faults.push({ from: killedAt, to: killedAt + SESSION_MS + 5_000 })
    // Two thirds: add an instance; the group rebalances when it joins.
    await until(
      () => produced >= (2 * RUNS) / 3,
      120_000,
      () => `producing (${produced})`,
    )
    const addedAt = Date.now()
    services.push(await startService(config, { env }))
    faults.push({ from: addedAt, to: Date.now() + 2_000 })
    const placements = await producing
    await producer.disconnect()

    await until(
      () => deliveredRuns(rx, SCORERS.length).size >= runs.length,
      240_000,
      () => `all runs scored (${deliveredRuns(rx, SCORERS.length).size}/${runs.length})`,
      500,
    )
    // Everything committed, then a graceful stop of the three live instances.
    await until(
      async () => {
        const committed = await groupOffsets(kafka, groupId, topic)
        return [...Array(PARTITIONS).keys()].every(
          (p) =>
            committed.get(p) ===
            1 + Math.max(...[...placements.values()].filter((x) => x.partition === p).map((x) => x.offset)),
        )
      },
      60_000,
      () => 'final commit',
    )
    // The faults happened: the first instance died by SIGKILL, the added one consumed its share.
    expect((await services[0]!.exited).signal).toBe('SIGKILL')
    expect(await services[3]!.metric('tracescore_records_total')).toBeGreaterThan(0)
    const codes = await Promise.all(services.slice(1).map((s) => s.stop()))
    expect(codes).toEqual([0, 0, 0])

    const delivered = deliveredRuns(rx, SCORERS.length)
    expect(runs.filter((run) => !delivered.has(runKey(run))).map(runKey)).toEqual([])
    const byKey = judge.byKey
    console.log(
      `ledger rebalance: ${runs.length} runs, ${rx.scores.size} score spans, ${rx.duplicates()} re-deliveries, ` +
        `${rx.changed()} changed, ${byKey.size} judge steps asked, ${repeatedRequests(byKey)} repeated judge requests`,
    )
    expect(rx.changed()).toBe(0)
    expect(byKey.size).toBe(runs.length * JUDGE_STEPS)
    expect(unexplainedRepeats(byKey, faults, IN_FLIGHT_WINDOW_MS)).toEqual([])
  })
})
