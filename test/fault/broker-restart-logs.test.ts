/**
 * The broker stops (controlled shutdown) for 10 s while `tracescore run` reads a span topic and a
 * logs topic (kafka.logsTopic) and scores a backlog of runs whose content is only in log records,
 * then restarts on its kept data; the backlog's last third is produced after the restart. A private broker (scripts/kafka-start.sh on FAULT_BROKER_PORT +
 * 30, away from broker-restart.test.ts's lanes), so the shared one is untouched. Proves: the same
 * process recovers by itself, every run is scored, the source's committed offsets on the
 * repartitioned topic never covered a span or log record of an undelivered run (sampled while the
 * broker was up), both raw topics end fully committed, log records still join their runs, and
 * the process exits 0 by itself on SIGTERM (it did not, in 2 of 4 runs, before kafkajs consumers
 * caught mid-join after the outage were made to stop for good: src/ingest/kafkajs-consumer.ts).
 * The repartitioned topic's group also stayed behind for good (5 of 6 runs under load) before
 * offsets were committed again after each join (kafkajs answers a commit made while it restarts
 * without making it: OffsetTracker.commitAgain); a failure there prints the offsets and metrics.
 */
import { Kafka, logLevel } from 'kafkajs'
import { afterAll, describe, expect, it } from 'vitest'
import { LATE_EXIT_MESSAGE } from '../../src/commands/run.ts'
import { type ServiceProcess, startService } from '../helpers/cli.ts'
import { privateBroker } from '../helpers/fault-broker.ts'
import {
  hasTextScorer,
  logRunKey,
  logRunTraceIds,
  produceLogRuns,
  repartitionedViolations,
  sampleCommits,
  scoredWithoutContent,
} from '../helpers/fault-log-traffic.ts'
import { deliveredRuns, type OtlpReceiver, startOtlpReceiver } from '../helpers/fault-otlp-receiver.ts'
import { writeServiceConfig } from '../helpers/fault-process.ts'
import {
  committedOffsets,
  endOffsets,
  fullyCommitted,
  uniqueName,
  untilFullyCommitted,
} from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

const PORT = Number(process.env.FAULT_BROKER_PORT ?? 29392) + 30
const RUNS = Number(process.env.FAULT_BROKER_LOGS_RUNS ?? 3_000)
const PARTITIONS = 2
const OUTAGE_MS = 10_000
/** Runs produced before the outage; the rest after the broker is back. */
const BEFORE_OUTAGE = Math.round((RUNS * 2) / 3 / 100) * 100

describe('broker restart while tracescore run reads spans and log records from two topics', () => {
  const broker = privateBroker(PORT)
  const kafka = new Kafka({
    clientId: 'fault-broker-logs',
    brokers: broker.brokers,
    logLevel: logLevel.NOTHING,
  })
  let receiver: OtlpReceiver | undefined
  let service: ServiceProcess | undefined
  afterAll(async () => {
    await service?.kill9()
    await receiver?.close()
    await broker.destroy().catch(() => {})
  })

  it(`a ${OUTAGE_MS / 1000} s outage mid-stream: every run scored with its log record, commits never ahead`, async () => {
    await broker.start()
    const spansTopic = uniqueName('fault-blogs-spans')
    const logsTopic = uniqueName('fault-blogs-logs')
    const byTrace = `${spansTopic}.by_trace`
    const groupId = uniqueName('fault-blogs-group')
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({
      topics: [spansTopic, logsTopic].map((topic) => ({ topic, numPartitions: PARTITIONS })),
      waitForLeaders: true,
    })
    await admin.disconnect()
    const traceIds = logRunTraceIds(RUNS)
    // Two thirds of the backlog before the outage, a third after it: however fast the service
    // scores the first part (the broker's controlled shutdown can take seconds), the rest is read,
    // scored and committed only through the consumers that lived through the outage.
    const produce = async (from: number, to: number) => {
      const producer = kafka.producer()
      await producer.connect()
      for (let i = from; i < to; i += 100)
        await produceLogRuns(
          producer,
          { spans: spansTopic, logs: logsTopic },
          traceIds.slice(i, Math.min(i + 100, to)),
          PARTITIONS,
          i,
        )
      await producer.disconnect()
    }
    await produce(0, BEFORE_OUTAGE)

    receiver = await startOtlpReceiver()
    const rx = receiver
    const delivered = (at?: number) => deliveredRuns(rx, 1, at)
    service = await startService(
      writeServiceConfig(spansTopic, {
        brokers: broker.brokers,
        topic: spansTopic,
        logsTopic,
        groupId,
        deadLetterTopic: `${spansTopic}-dlq`,
        otlpUrl: rx.url,
        sessionTimeoutMs: 10_000,
        settleMs: 2_000,
        ...hasTextScorer,
      }),
    )
    const sampler = sampleCommits(kafka, groupId, byTrace)
    // The outage hits mid-stream: some runs scored, most not yet.
    await until(
      () => delivered().size >= RUNS / 20,
      120_000,
      () => `scoring before the outage (${delivered().size} runs)`,
      100,
    )
    await sampler.stop() // offsets are read only while the broker is up
    const scoredBefore = delivered().size
    await broker.stop()
    await new Promise((r) => setTimeout(r, OUTAGE_MS))
    await broker.restart()
    await produce(BEFORE_OUTAGE, RUNS)
    const after = sampleCommits(kafka, groupId, byTrace)
    await until(
      () => delivered().size >= RUNS,
      240_000,
      () =>
        `all runs scored after the restart (${delivered().size}/${RUNS})\n${service!.output().slice(-3000)}`,
      500,
    )
    await untilFullyCommitted(kafka, `${groupId}-repartition`, spansTopic, 'span topic repartitioned')
    await untilFullyCommitted(kafka, `${groupId}-repartition-logs`, logsTopic, 'logs topic repartitioned')
    // Raw records split again after the outage (their repartition commits failed) can bring a
    // trace's log records back after the trace was released and forgotten: such a trace of log
    // records alone holds its records until assembly.maxTraceAgeMs (60 s here), then is finished.
    const committing = Date.now()
    await until(
      () => fullyCommitted(kafka, groupId, byTrace),
      150_000,
      () => `repartitioned topic done\n${service!.output().slice(-6000)}`,
      1_000,
    ).catch(async (error: Error) => {
      const [ends, committed, metrics] = await Promise.all([
        endOffsets(kafka, byTrace),
        committedOffsets(kafka, groupId, byTrace),
        fetch(`${service!.metricsUrl}/metrics`).then((r) => r.text()),
      ])
      const lines = metrics
        .split('\n')
        .filter((l) => /^tracescore_(buffered|held|consumer_lag|late|traces|records|sink)/.test(l))
      throw new Error(
        `${error.message}\nends ${JSON.stringify([...ends])}, committed ${JSON.stringify([...committed])}\n${lines.join('\n')}`,
      )
    })
    const commitWaitS = Math.round((Date.now() - committing) / 1000)
    await after.stop()
    const exit = await service.stop()

    expect(traceIds.filter((t) => !delivered().has(logRunKey(t)))).toEqual([])
    const withoutContent = scoredWithoutContent(rx)
    const { violations, records, logRecords } = await repartitionedViolations(
      kafka,
      byTrace,
      [...sampler.samples, ...after.samples],
      rx,
    )
    console.log(
      `broker restart with two topics: ${RUNS} runs (${RUNS - BEFORE_OUTAGE} produced after it; ${scoredBefore} scored before the outage), ` +
        `${records} repartitioned records (${logRecords} of log records), ` +
        `${sampler.samples.length + after.samples.length} commit samples, ${violations} violations, ` +
        `${withoutContent} runs scored without their log record, last commit ${commitWaitS} s after all runs scored, ` +
        `exit code on SIGTERM ${exit}`,
    )
    expect(logRecords).toBeGreaterThanOrEqual(RUNS)
    expect(violations).toBe(0)
    expect(withoutContent).toBeLessThanOrEqual(RUNS / 100)
    // The same process recovered by itself, and stops cleanly on SIGTERM: by itself, not by the
    // run command's last resort against a Kafka consumer that outlived its stop.
    expect(exit, service.output().slice(-6000)).toBe(0)
    expect(service.output()).not.toContain(LATE_EXIT_MESSAGE)
  })
})
