/**
 * Agent runs whose content is only in log records, for the fault tests of `kafka.logsTopic`: each
 * run's spans and its `gen_ai.client.inference.operation.details` log record produced as separate
 * null-keyed OTLP/JSON records on different partitions of a span topic and a logs topic, a scorer
 * that scores every run by whether its final text (only in the log record) was read, and the
 * at-least-once check on the repartitioned topic the two meet in.
 */
import type { Kafka, Producer } from 'kafkajs'
import {
  encodeLogRecordsAsOtlpJson,
  encodeSpansAsOtlpJson,
} from '../../src/ingest/repartition/encode-otlp-json.ts'
import { SIGNAL_HEADER } from '../../src/ingest/signal-header.ts'
import { AGENT, contentlessSpans, detailsEvents } from '../../src/ingest/testing/log-content-trace.ts'
import { deliveredRuns, type OtlpReceiver } from './fault-otlp-receiver.ts'
import { groupOffsets } from './fault-traffic.ts'
import { readTopic } from './kafka.ts'

/** `n` distinct trace ids. */
export const logRunTraceIds = (n: number): string[] =>
  Array.from({ length: n }, (_, i) => `e${(i + 1).toString(16).padStart(31, '0')}`)

/** The receiver's key of a run (`traceId/agentSpanId`). */
export const logRunKey = (traceId: string): string => `${traceId}/${AGENT}`

/** `preamble` and `scorers` of `writeServiceConfig`: every run scored, 1 with its final text, 0 without. */
export const hasTextScorer = {
  preamble: `import { createScorer } from 'tracescore'
const hasText = createScorer({ id: 'has-text', description: 'final text read', type: 'agent' })
  .generateScore(({ run }) => (run.recorded?.finalText ? 1 : 0))`,
  scorers: '{ hasText: { scorer: hasText } }',
}

/** Produces the runs of `traceIds` (their spans and their log records) starting at run `from`. */
export async function produceLogRuns(
  producer: Producer,
  topics: { spans: string; logs: string },
  traceIds: readonly string[],
  partitions: number,
  from = 0,
): Promise<void> {
  await producer.send({
    topic: topics.spans,
    messages: traceIds.map((t, j) => ({
      key: null,
      value: encodeSpansAsOtlpJson(contentlessSpans(t)),
      partition: (from + j) % partitions,
    })),
  })
  await producer.send({
    topic: topics.logs,
    messages: traceIds.map((t, j) => ({
      key: null,
      value: encodeLogRecordsAsOtlpJson(detailsEvents(t)),
      partition: (from + j + 1) % partitions,
    })),
  })
}

/** The source's committed offsets on the repartitioned topic, sampled with when they were read. */
export function sampleCommits(kafka: Kafka, groupId: string, topic: string) {
  const samples: { committed: Map<number, number>; at: number }[] = []
  let sampling = true
  const done = (async () => {
    while (sampling) {
      const committed = await groupOffsets(kafka, groupId, topic).catch(() => undefined)
      // Read after the offsets: a run whose record they cover was delivered before its commit.
      if (committed) samples.push({ committed, at: Date.now() })
      await new Promise((r) => setTimeout(r, 1_000))
    }
  })()
  return {
    samples,
    async stop() {
      sampling = false
      await done
    },
  }
}

/**
 * The at-least-once check on the repartitioned topic: records (a run's spans or its log records)
 * below a sampled committed offset whose run was not delivered when that offset was read. Also
 * returns how many records there are, and of log records.
 */
export async function repartitionedViolations(
  kafka: Kafka,
  topic: string,
  samples: readonly { committed: Map<number, number>; at: number }[],
  receiver: OtlpReceiver,
): Promise<{ violations: number; records: number; logRecords: number }> {
  const admin = kafka.admin()
  await admin.connect()
  const ends = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect())
  const records = await readTopic(
    kafka,
    topic,
    ends.reduce((n, p) => n + Number(p.high), 0),
    60_000,
  )
  let violations = 0
  for (const sample of samples) {
    const done = deliveredRuns(receiver, 1, sample.at)
    for (const record of records) {
      const committed = sample.committed.get(record.partition) ?? -1
      if (Number(record.offset) < committed && !done.has(logRunKey(record.key!))) violations++
    }
  }
  const logRecords = records.filter((r) => r.headers[SIGNAL_HEADER] === 'logs').length
  return { violations, records: records.length, logRecords }
}

/** Runs whose score says their log record was not read with them (it came after the trace settled). */
export function scoredWithoutContent(receiver: OtlpReceiver): number {
  return [...receiver.scores.values()].filter((s) => s.span.attributes['gen_ai.evaluation.score.value'] !== 1)
    .length
}
