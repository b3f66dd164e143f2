/**
 * kill -9 of `tracescore run` reading a span topic and a logs topic (kafka.logsTopic) during a
 * stream of agent runs whose content is only in log records: every run's spans and its
 * `gen_ai.client.inference.operation.details` log record are separate null-keyed records on other
 * partitions of the two topics, repartitioned into one topic. The scorer scores every run, 1 when
 * its final text (which only the log record holds) was read, 0 when not. Proves at-least-once
 * across the kills: every run is scored, and the source's committed offsets on the repartitioned
 * topic never cover a record (span or log record) of a trace whose score was not delivered; both raw
 * topics end fully committed by their repartition groups. A run scored 0 is one whose log record
 * reached the repartitioned topic after its trace settled (the two repartition stages restart
 * independently after a kill): scored from its spans, as the assembly bounds say; counted.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { type ServiceProcess, startService } from '../helpers/cli.ts'
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
import { createTopic, testBrokers, testKafka, uniqueName, untilFullyCommitted } from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

const RUNS = Number(process.env.FAULT_KILL_LOGS_RUNS ?? 900)
const RATE = 20 // runs per batch, one batch a second at most
const KILLS = 3
const PARTITIONS = 3

describe('kill -9 of tracescore run reading spans and log records from two topics', () => {
  const kafka = testKafka('fault-kill-logs')
  let receiver: OtlpReceiver | undefined
  let service: ServiceProcess | undefined
  afterAll(async () => {
    await service?.kill9()
    await receiver?.close()
  })
  const spansTopic = uniqueName('fault-logs-spans')
  const logsTopic = uniqueName('fault-logs-logs')
  const byTrace = `${spansTopic}.by_trace`
  const groupId = uniqueName('fault-logs-group')
  const traceIds = logRunTraceIds(RUNS)

  it(`scores every run (${RUNS}, content only in log records) across ${KILLS} kills; commits never run ahead`, async () => {
    await createTopic(kafka, spansTopic, PARTITIONS)
    await createTopic(kafka, logsTopic, PARTITIONS)
    receiver = await startOtlpReceiver()
    const rx = receiver
    const config = writeServiceConfig(spansTopic, {
      brokers: testBrokers(),
      topic: spansTopic,
      logsTopic,
      groupId,
      deadLetterTopic: `${spansTopic}-dlq`,
      otlpUrl: rx.url,
      sessionTimeoutMs: 10_000,
      settleMs: 2_000,
      ...hasTextScorer,
    })
    const delivered = (at?: number) => deliveredRuns(rx, 1, at)
    service = await startService(config)

    // The stream: each run's spans and its log record, each its own record, on different partitions.
    const producer = kafka.producer()
    await producer.connect()
    let produced = 0
    const producing = (async () => {
      for (let i = 0; i < RUNS; i += RATE) {
        const batch = traceIds.slice(i, i + RATE)
        await produceLogRuns(producer, { spans: spansTopic, logs: logsTopic }, batch, PARTITIONS, i)
        produced = i + batch.length
        await new Promise((r) => setTimeout(r, 1_000))
      }
    })()

    // Committed offsets of the source on the repartitioned topic, with what was delivered then.
    const sampler = sampleCommits(kafka, groupId, byTrace)

    const kills: (NodeJS.Signals | null)[] = []
    for (let k = 0; k < KILLS; k++) {
      const readyAt = Date.now()
      await until(
        () => Date.now() - readyAt > 3_000 && delivered().size >= produced - 3 * RATE && produced < RUNS,
        120_000,
        () => `catching up before kill ${k + 1} (${delivered().size} runs scored, ${produced} produced)`,
        250,
      )
      await new Promise((r) => setTimeout(r, 500 + Math.random() * 1_500))
      await service.kill9()
      kills.push((await service.exited).signal)
      service = await startService(config)
    }
    await producing
    await producer.disconnect()
    await until(
      () => delivered().size >= RUNS,
      180_000,
      () => `all runs scored (${delivered().size}/${RUNS})`,
      500,
    )
    await untilFullyCommitted(kafka, `${groupId}-repartition`, spansTopic, 'span topic repartitioned')
    await untilFullyCommitted(kafka, `${groupId}-repartition-logs`, logsTopic, 'logs topic repartitioned')
    await untilFullyCommitted(kafka, groupId, byTrace, 'repartitioned topic done')
    await sampler.stop()
    expect(await service.stop()).toBe(0)

    // Zero lost, and each run scored with its log record joined (the score needs its final text).
    const lost = traceIds.filter((t) => !delivered().has(logRunKey(t)))
    expect(lost).toEqual([])
    const scores = [...rx.scores.values()]
    expect(scores.every((s) => !s.error)).toBe(true)
    const withoutContent = scoredWithoutContent(rx)
    expect(kills).toEqual(Array(KILLS).fill('SIGKILL'))

    // Offsets never ran ahead of delivery: no record of the repartitioned topic (a run's spans or
    // its log records, re-split after a kill or not) below a committed offset whose run was not
    // delivered by the time that offset was read.
    const { violations, records, logRecords } = await repartitionedViolations(
      kafka,
      byTrace,
      sampler.samples,
      rx,
    )
    expect(logRecords).toBeGreaterThanOrEqual(RUNS)
    console.log(
      `kill -9 with two topics: ${RUNS} runs, ${kills.length} kills, ${records} repartitioned records ` +
        `(${logRecords} of log records), ${sampler.samples.length} commit samples, ${violations} violations, ` +
        `${scores.reduce((n, s) => n + s.arrivals - 1, 0)} repeated score arrivals, ` +
        `${withoutContent} runs scored without their log record (it came after the trace settled)`,
    )
    expect(violations).toBe(0)
    // Log records joined their runs across the kills: at most 1% of the runs were scored without
    // theirs (a logs stage lagging more than settleMs behind the spans' after a restart).
    expect(withoutContent).toBeLessThanOrEqual(RUNS / 100)
  })
})
