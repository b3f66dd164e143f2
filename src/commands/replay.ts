import type { TracescoreConfig } from '../config/index.ts'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import type { Span } from '../model/index.ts'
import { createLogger } from '../ops/logger.ts'
import { kafkaClientOf, sinkConfigsOf } from '../pipeline.ts'
import { groupByTrace, scoreTrace } from '../score-trace.ts'
import { configureJudgeFromConfig } from '../scoring/judge-governance.ts'
import { TokenBudget } from '../scoring/token-budget.ts'
import { createSinks } from '../sink/index.ts'

/** Where a replay starts or ends: an offset (every partition) or a time (ISO 8601 or epoch ms). */
export type ReplayBound = { offset: number } | { timestampMs: number }

/** Parses `--from` / `--to`: a plain integer is an offset, anything else a date. */
export function parseReplayBound(text: string): ReplayBound {
  if (/^\d+$/.test(text) && text.length < 13) return { offset: Number(text) }
  const ms = /^\d{13}$/.test(text) ? Number(text) : Date.parse(text)
  if (Number.isNaN(ms))
    throw new Error(`expected an offset or a time (ISO 8601 or epoch ms), got ${JSON.stringify(text)}`)
  return { timestampMs: ms }
}

/** The most spans a replay holds at once; a larger range must be split. */
const MAX_REPLAY_SPANS = 1_000_000

/**
 * `tracescore replay --from X [--to Y]`: re-scores a range of the topic into the configured sinks
 * (a new scorer version, a backfill). Reads with its own throw-away consumer group, so the
 * service's committed offsets are untouched; shows progress on stderr.
 */
export async function replayRange(
  config: TracescoreConfig,
  from: ReplayBound,
  to?: ReplayBound,
): Promise<number> {
  const logger = createLogger(config.log.level)
  configureJudgeFromConfig(config)
  const kafka = kafkaClientOf(config)
  const { topic } = config.kafka
  const admin = kafka.admin()
  await admin.connect()
  const ends = await admin.fetchTopicOffsets(topic)
  const at = async (bound: ReplayBound) =>
    'offset' in bound
      ? ends.map((p) => ({ partition: p.partition, offset: String(Math.min(bound.offset, Number(p.high))) }))
      : await admin.fetchTopicOffsetsByTimestamp(topic, bound.timestampMs)
  const starts = new Map((await at(from)).map((p) => [p.partition, Number(p.offset)]))
  const stops = new Map(
    (to ? await at(to) : ends.map((p) => ({ partition: p.partition, offset: p.high }))).map((p) => [
      p.partition,
      Number(p.offset) < 0 ? Number(ends.find((e) => e.partition === p.partition)!.high) : Number(p.offset),
    ]),
  )
  await admin.disconnect()
  const total = [...stops].reduce((sum, [p, stop]) => sum + Math.max(0, stop - (starts.get(p) ?? 0)), 0)
  const spans: Span[] = []
  let read = 0
  let bad = 0
  const progress = () => process.stderr.write(`\rreplay: ${read}/${total} records, ${spans.length} spans`)
  if (total > 0) {
    const consumer = kafka.consumer({ groupId: `tracescore-replay-${Date.now().toString(36)}` })
    await consumer.connect()
    await consumer.subscribe({ topic, fromBeginning: true })
    const remaining = new Set([...stops].filter(([p, stop]) => stop > (starts.get(p) ?? 0)).map(([p]) => p))
    let finish: () => void = () => {}
    const finished = new Promise<void>((resolve) => {
      finish = resolve
    })
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        const stop = stops.get(batch.partition) ?? 0
        for (const message of batch.messages) {
          const offset = Number(message.offset)
          if (offset < (starts.get(batch.partition) ?? 0) || offset >= stop) continue
          read++
          try {
            // One span at a time: spreading a large record into push() overflows the stack.
            if (message.value)
              for (const span of decodeOtlpTraces(message.value, config.kafka.encoding)) spans.push(span)
          } catch {
            bad++
          }
          if (spans.length > MAX_REPLAY_SPANS)
            throw new Error(`more than ${MAX_REPLAY_SPANS} spans: narrow the range`)
        }
        if (Number(batch.lastOffset()) + 1 >= stop) remaining.delete(batch.partition)
        progress()
        if (remaining.size === 0) finish()
      },
    })
    for (const [partition, offset] of starts) consumer.seek({ topic, partition, offset: String(offset) })
    if (remaining.size === 0) finish()
    await finished
    await consumer.disconnect()
    process.stderr.write('\n')
  }
  const sinks = createSinks(sinkConfigsOf(config))
  const budget = new TokenBudget(
    Object.fromEntries(
      Object.entries(config.scorers).flatMap(([n, e]) =>
        e.dailyTokenBudget ? [[n, e.dailyTokenBudget]] : [],
      ),
    ),
  )
  let scores = 0
  for (const traceSpans of groupByTrace(spans).values()) {
    const { records } = await scoreTrace(traceSpans, { scorers: config.scorers, budget })
    if (records.length > 0) await sinks.deliver(records)
    scores += records.length
  }
  await sinks.close()
  logger.info({ records: read, undecodable: bad, spans: spans.length, scores }, 'replay done')
  return 0
}
