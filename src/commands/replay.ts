import type { Admin } from 'kafkajs'
import type { TracescoreConfig } from '../config/index.ts'
import { createKafkaClient } from '../ingest/kafka-client.ts'
import { createLogger } from '../ops/logger.ts'
import { createPipeline, type Pipeline, type PipelineRange } from '../pipeline.ts'
import { exitSoon } from './exit-soon.ts'

/** Where a replay starts or ends: an offset (every partition) or a time (ISO 8601 or epoch ms). */
type ReplayBound = { offset: number } | { timestampMs: number }

/** Parses `--from` / `--to`: a plain integer is an offset, anything else a date. */
export function parseReplayBound(text: string): ReplayBound {
  if (/^\d+$/.test(text) && text.length < 13) return { offset: Number(text) }
  const ms = /^\d{13}$/.test(text) ? Number(text) : Date.parse(text)
  if (Number.isNaN(ms))
    throw new Error(`expected an offset or a time (ISO 8601 or epoch ms), got ${JSON.stringify(text)}`)
  return { timestampMs: ms }
}

/**
 * `tracescore replay --from X [--to Y]`: re-scores a range of the topic into the configured sinks
 * (a new scorer version, a backfill). The range streams through the same assembler, scoring and
 * delivery as `tracescore run`, so memory stays bounded whatever its size; it reads with its own
 * throw-away consumer group (the service's committed offsets are untouched), shows progress on
 * stderr and ends when every partition reached its end offset. An error ends it with exit 1.
 * With the score ledger on, runs the ledger has are delivered again as recorded, not scored;
 * `rescore` scores every run again (and records the new decisions).
 */
export async function replayRange(
  config: TracescoreConfig,
  from: ReplayBound,
  to?: ReplayBound,
  options: { rescore?: boolean } = {},
): Promise<number> {
  const logger = createLogger(config.log.level)
  const kafka = createKafkaClient(config.kafka, logger)
  const admin = kafka.admin()
  let pipeline: Pipeline | undefined
  let progress: NodeJS.Timeout | undefined
  try {
    await admin.connect()
    const range = await resolveRange(admin, config.kafka.topic, from, to)
    const total = rangeSize(range)
    if (total === 0) {
      process.stderr.write('replay: 0/0 records, nothing to replay\n')
      return 0
    }
    pipeline = createPipeline(config, { logger, kafka, range, rescore: options.rescore })
    const p = pipeline
    const show = () => {
      const s = p.stats()
      process.stderr.write(
        `\rreplay: ${s.records}/${total} records, ${s.spans} spans, ${s.tracesDelivered} traces scored`,
      )
    }
    progress = setInterval(show, 1_000)
    await p.start()
    const failure = await Promise.race([p.caughtUp.then(() => p.drain()), p.failed.then(asError)])
    show()
    process.stderr.write('\n')
    if (failure instanceof Error) throw failure
    await admin.deleteGroups([range.groupId]).catch(() => {}) // leave no throw-away group behind
    logger.info({ stats: p.stats() }, 'replay done')
    return 0
  } catch (error) {
    logger.error({ err: error }, 'replay failed')
    process.stderr.write(`replay failed: ${(error as Error).message}\n`)
    exitSoon(1) // never a hang: a consumer stuck in a request may hold the process
    return 1
  } finally {
    clearInterval(progress)
    await pipeline?.stop().catch(() => {})
    await admin.disconnect().catch(() => {})
  }
}

/** The start and end offset of every partition for the bounds (`to` absent: the current end). */
async function resolveRange(
  admin: Admin,
  topic: string,
  from: ReplayBound,
  to: ReplayBound | undefined,
): Promise<PipelineRange> {
  if (!(await admin.listTopics()).includes(topic)) {
    throw new Error(`topic ${topic} does not exist: nothing to replay`)
  }
  const ends = await admin.fetchTopicOffsets(topic)
  const at = async (bound: ReplayBound) =>
    'offset' in bound
      ? ends.map((p) => ({ partition: p.partition, offset: String(Math.min(bound.offset, Number(p.high))) }))
      : await admin.fetchTopicOffsetsByTimestamp(topic, bound.timestampMs)
  // A time after the last record answers -1: the partition's end.
  const resolved = (offsets: { partition: number; offset: string }[]) =>
    offsets.map((o) => {
      const { low, high } = ends.find((e) => e.partition === o.partition)!
      const offset = Number(o.offset) < 0 ? Number(high) : Number(o.offset)
      return [o.partition, String(Math.max(offset, Number(low)))] as const
    })
  const startOffsets = new Map(resolved(await at(from)))
  const endOffsets = new Map(
    resolved(to ? await at(to) : ends.map((e) => ({ partition: e.partition, offset: e.high }))),
  )
  return { groupId: `tracescore-replay-${Date.now().toString(36)}`, startOffsets, endOffsets }
}

/** Records in the range. */
function rangeSize(range: PipelineRange): number {
  let total = 0
  for (const [partition, end] of range.endOffsets)
    total += Math.max(0, Number(end) - Number(range.startOffsets.get(partition) ?? end))
  return total
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)))
