import type { Admin, Kafka, Producer } from 'kafkajs'
import type { TracescoreConfig } from '../config/index.ts'
import type { ScorerEntry } from '../config/schema.ts'
import type { DeliveryTarget } from '../ingest/delivery-queue.ts'
import type { IngestedTrace } from '../ingest/kafka-source.ts'
import { waitForTopic } from '../ingest/kafka-topics.ts'
import type { AgentRun } from '../model/index.ts'
import type { Logger } from '../ops/logger.ts'
import type { Metrics } from '../ops/metrics.ts'
import type { TraceScores } from '../score-trace.ts'
import { callsJudge } from '../scoring/required-parts.ts'
import type { Decision } from '../scoring/score-run.ts'
import type { StepAnswers } from '../scoring/step-answers.ts'
import { createKafkaLedgerLog, ensureLedgerTopic, type KafkaLedgerLog } from './kafka-ledger-log.ts'
import { isLedgered, ledgerKey, scorerIdentity } from './ledger-entry.ts'
import type { LedgerLog } from './ledger-log.ts'
import { createScoreLedger, type LedgerWrite, type ScoreLedger } from './score-ledger.ts'

/** What a scored trace carries to its delivery when the ledger is on: the decisions to record first. */
export interface LedgerRecording {
  partitions: number[]
  writes: LedgerWrite[]
}

/** How the ledger takes part in scoring one trace. */
export interface LedgerScoring {
  /** Waits until the trace's partitions are loaded; then `recorded` answers from the ledger. */
  prepare(trace: IngestedTrace): Promise<{
    recorded: (run: AgentRun, name: string, entry: ScorerEntry) => Decision | undefined
    /** The new decisions of the scores to record (those not taken from the ledger). */
    recording: (scores: TraceScores) => LedgerRecording
    /** The kept judge answers of a (run, scorer) the ledger has no decision for (`stepAnswers`). */
    answers: (run: AgentRun, name: string, entry: ScorerEntry) => StepAnswers
  }>
}

/** The partitions a trace's records came from, ascending. */
export function partitionsOf(trace: Pick<IngestedTrace, 'recordRefs'>): number[] {
  return [...new Set(trace.recordRefs.map((r) => r.partition))].sort((a, b) => a - b)
}

/**
 * The ledger's part in scoring: looks each (run, scorer) up in the partitions the run's records
 * came from (or, `anywhere`, in every partition: a replay), counts hits and misses, and names the
 * decisions made now for recording. `rescore` looks nothing up (everything is scored again and
 * recorded anew).
 */
export function ledgerScoring(
  ledger: ScoreLedger,
  options: {
    scorers: Record<string, ScorerEntry>
    metrics?: Metrics
    logger?: Logger
    rescore?: boolean
    anywhere?: () => number[]
  },
): LedgerScoring {
  const { metrics } = options
  const keyOf = (traceId: string, spanId: string, name: string, entry: ScorerEntry) => {
    const { scorerId, version } = scorerIdentity(name, entry)
    return ledgerKey(traceId, spanId, scorerId, version)
  }
  return {
    async prepare(trace) {
      const partitions = partitionsOf(trace)
      const searched = options.anywhere?.() ?? partitions
      await ledger.loaded(searched)
      const reused = new Set<Decision>()
      return {
        recorded(run, name, entry) {
          if (options.rescore) return undefined
          const known = ledger.lookup(searched, keyOf(run.traceId, run.spanId, name, entry))
          metrics?.ledgerLookups.inc({ scorer: name, result: known ? 'hit' : 'miss' })
          if (known === undefined) return undefined
          const decision: Decision = { traceId: run.traceId, spanId: run.spanId, scorer: name, ...known }
          reused.add(decision)
          return decision
        },
        answers(run, name, entry) {
          const key = keyOf(run.traceId, run.spanId, name, entry)
          const { rescore, logger } = options
          return stepAnswers(ledger, { key, scorer: name, searched, partitions, rescore, metrics, logger })
        },
        recording(scores) {
          const writes = scores.decisions
            .filter((d) => !reused.has(d) && isLedgered(d) && options.scorers[d.scorer] !== undefined)
            .map((d) => ({
              key: keyOf(d.traceId, d.spanId, d.scorer, options.scorers[d.scorer]!),
              decision: d,
            }))
          return { partitions, writes }
        },
      }
    },
  }
}

/**
 * The judge steps of one (run, scorer) through the ledger: a step asked with the same prompt
 * hash as a kept answer takes that answer (`tracescore_judge_answers_reused_total`); a step noted
 * as asked but never answered is asked again and counted as repeated
 * (`tracescore_judge_requests_repeated_total`: its request was under way when a process died);
 * the note that a step's request was sent rides with the next write, the answer is waited for. With
 * `rescore` nothing is reused or counted: every step asks again. A failed write is logged and
 * the scoring goes on (that answer is only not kept).
 */
function stepAnswers(
  ledger: ScoreLedger,
  ctx: {
    key: string
    scorer: string
    searched: readonly number[]
    partitions: readonly number[]
    rescore?: boolean
    metrics?: Metrics
    logger?: Logger
  },
): StepAnswers {
  const { key, scorer, metrics } = ctx
  const kept = (step: string) => (ctx.rescore ? undefined : ledger.keptStep(ctx.searched, key, step))
  const failed = (error: unknown) =>
    ctx.logger?.warn({ err: error, key }, 'score ledger: a judge answer could not be kept')
  const sent = new Set<string>()
  return {
    recall(step, hash) {
      const known = kept(step)
      if (known?.answer === undefined || known.hash !== hash) return undefined
      metrics?.judgeAnswersReused.inc({ scorer })
      return known.answer
    },
    asking(step, hash) {
      // Once per step of this scoring: its retries are the same request, not a repeat.
      if (sent.has(step)) return
      sent.add(step)
      const known = kept(step)
      if (known !== undefined && known.answer === undefined && known.hash === hash)
        metrics?.judgeRequestsRepeated.inc({ scorer })
      void ledger.keepStep(ctx.partitions, key, step, hash)
    },
    async keep(step, hash, answer) {
      await ledger.keepStep(ctx.partitions, key, step, hash, answer).catch(failed)
    },
  }
}

/**
 * The delivery targets with the ledger written first: each target's delivery of a trace waits
 * until its new decisions are in the ledger (one write per trace, shared by the targets, done
 * again on the next attempt if it failed). So a score reaches a sink only once it is recorded: a
 * crash after that re-delivers the recorded score, never a new one; and the trace's offsets,
 * committed only after every target acknowledged, never pass an unrecorded run.
 */
export function ledgerFirst<R extends { ledger?: LedgerRecording }>(
  targets: readonly DeliveryTarget<R>[],
  ledger: ScoreLedger,
  metrics?: Metrics,
): DeliveryTarget<R>[] {
  const writing = new WeakMap<R, Promise<void>>()
  const recorded = (result: R): Promise<void> => {
    const { ledger: recording } = result
    if (recording === undefined || recording.writes.length === 0) return Promise.resolve()
    let write = writing.get(result)
    if (write === undefined) {
      write = ledger.record(recording.partitions, recording.writes).then(
        () => {
          for (const w of recording.writes) metrics?.ledgerWrites.inc({ scorer: w.decision.scorer })
        },
        (error: unknown) => {
          writing.delete(result) // the next attempt writes again
          throw error
        },
      )
      writing.set(result, write)
    }
    return write
  }
  return targets.map((target) => ({
    name: target.name,
    async deliver(result) {
      await recorded(result)
      await target.deliver(result)
    },
  }))
}

/** What the pipeline is given to run the ledger. */
export interface LedgerStageOptions {
  config: Pick<TracescoreConfig, 'ledger' | 'kafka' | 'scorers'>
  kafka: Kafka
  producer: Producer
  admin: Admin
  logger: Logger
  metrics?: Metrics
  /** A replay: every ledger partition is loaded and searched (its input partitions are not the service's). */
  replay?: boolean
  /** Score every run again (`replay --rescore`); decisions are still recorded. */
  rescore?: boolean
  /** The ledger log; the Kafka one when absent (tests give a memory one). */
  log?: LedgerLog & Partial<Pick<KafkaLedgerLog, 'start' | 'stop'>>
  now?: () => number
}

/** The ledger as the pipeline runs it (`undefined` pieces when it is off or unavailable). */
export interface LedgerStage {
  /** Creates the topic if needed and starts reading it; then scoring goes through the ledger. */
  start(sourceTopic: string, signal: AbortSignal): Promise<void>
  stop(): Promise<void>
  /** The source's (re)assignments. */
  onAssigned(partitions: readonly number[]): void
  /** The ledger's part in scoring; undefined while off (not started, disabled, unavailable). */
  scoring(): LedgerScoring | undefined
  /** Wraps delivery targets so the ledger is written first. */
  targets<R extends { ledger?: LedgerRecording }>(targets: readonly DeliveryTarget<R>[]): DeliveryTarget<R>[]
}

/** The ledger topic's name: `ledger.topic`, else `<the topic the service reads>.score_ledger`. */
export function ledgerTopicOf(config: Pick<TracescoreConfig, 'ledger' | 'kafka'>): string {
  if (config.ledger.topic) return config.ledger.topic
  const source = config.kafka.repartition ? `${config.kafka.topic}.by_trace` : config.kafka.topic
  return `${source}.score_ledger`
}

/**
 * Whether the ledger is on: `ledger.enabled`, where `'auto'` means on when a registered scorer has
 * a judge (prompt-object) step. Code scorers decide again for nothing and the same way; a judge
 * repeated costs a paid call and may answer differently.
 */
export function ledgerEnabled(config: Pick<TracescoreConfig, 'ledger' | 'scorers'>): boolean {
  const { enabled } = config.ledger
  if (enabled !== 'auto') return enabled
  return Object.values(config.scorers).some((entry) => callsJudge(entry.scorer))
}

/**
 * The score ledger stage of the pipeline. At start it makes sure the ledger topic exists with at
 * least as many partitions as the source topic and starts its reader; when that fails within
 * `ledger.startTimeoutMs`, `ledger.onUnavailable` decides: `fail` rejects (tracescore exits 1
 * with the reason), `score-without` logs an error and scores without a ledger.
 */
export function createLedgerStage(options: LedgerStageOptions): LedgerStage {
  const { config, logger } = options
  const topic = ledgerTopicOf(config)
  const enabled = ledgerEnabled(config)
  const log =
    options.log ??
    createKafkaLedgerLog({
      kafka: options.kafka,
      producer: options.producer,
      admin: options.admin,
      topic,
      groupId: config.kafka.groupId,
      logger,
    })
  const ledger = createScoreLedger({
    log,
    retentionMs: config.ledger.retentionMs,
    maxEntries: config.ledger.maxEntries,
    logger,
    now: options.now,
  })
  let active = false
  let allPartitions: number[] = []
  let assigned: readonly number[] | undefined
  let expiry: NodeJS.Timeout | undefined
  const scoring = ledgerScoring(ledger, {
    scorers: config.scorers,
    metrics: options.metrics,
    logger,
    rescore: options.rescore,
    anywhere: options.replay ? () => allPartitions : undefined,
  })

  const open = async (sourceTopic: string) => {
    const { admin } = options
    if (options.log === undefined) {
      await admin.connect()
      // The repartitioned topic may not exist yet: it gets as many partitions as the raw one.
      const exists = (await admin.listTopics()).includes(sourceTopic)
      const partitions = (await admin.fetchTopicOffsets(exists ? sourceTopic : config.kafka.topic)).length
      await ensureLedgerTopic(admin, { topic, partitions, retentionMs: config.ledger.retentionMs })
      allPartitions = (await admin.fetchTopicOffsets(topic)).map((o) => o.partition)
    }
    await log.start?.(ledger.onRecords)
  }

  return {
    async start(sourceTopic, signal) {
      if (!enabled) return
      // The input topic is waited for as long as the source waits for it (no timeout).
      if (options.log === undefined) await waitForTopic(options.admin, config.kafka.topic, logger, signal)
      try {
        await openWithin(
          () => open(sourceTopic),
          config.ledger.startTimeoutMs,
          signal,
          async (error, attempt) => {
            await log.stop?.()
            logger.warn({ err: error, attempt, topic }, 'score ledger not ready yet; retrying')
          },
        )
      } catch (error) {
        await log.stop?.()
        const message = `score ledger topic ${topic} could not be created or read: ${(error as Error).message}`
        if (config.ledger.onUnavailable === 'fail')
          throw new Error(`${message} (ledger.onUnavailable: 'fail'; 'score-without' scores without it)`)
        logger.error({ err: error, topic }, `${message}; scoring without the ledger (ledger.onUnavailable)`)
        return
      }
      active = true
      if (options.replay) ledger.assign(allPartitions)
      else if (assigned !== undefined) ledger.assign(assigned)
      expiry = setInterval(() => ledger.expire(), 60_000)
      expiry.unref()
      logger.info(
        { topic, partitions: allPartitions.length, rescore: options.rescore ?? false },
        'score ledger ready',
      )
    },
    async stop() {
      clearInterval(expiry)
      ledger.stop()
      if (active) await log.stop?.()
      active = false
    },
    onAssigned(partitions) {
      assigned = partitions
      if (active && !options.replay) ledger.assign(partitions)
    },
    scoring: () => (active ? scoring : undefined),
    targets: (targets) => (enabled ? ledgerFirst(targets, ledger, options.metrics) : [...targets]),
  }
}

/**
 * Runs `open` until it succeeds (a topic just created answers "not the leader" for a moment),
 * waiting 250 ms doubling to 5 s between attempts (`onRetry` cleans up first), for at most
 * `timeoutMs`; then rejects with the last error. An abort rejects at once.
 */
async function openWithin(
  open: () => Promise<void>,
  timeoutMs: number,
  signal: AbortSignal,
  onRetry: (error: unknown, attempt: number) => Promise<void>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (let attempt = 1; ; attempt++) {
    signal.throwIfAborted()
    let timer: NodeJS.Timeout | undefined
    try {
      const left = deadline - Date.now()
      await Promise.race([
        open(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), left)
        }),
      ])
      return
    } catch (error) {
      const delayMs = Math.min(5_000, 250 * 2 ** (attempt - 1))
      if (signal.aborted || Date.now() + delayMs >= deadline) throw error
      await onRetry(error, attempt)
      await new Promise((r) => setTimeout(r, delayMs))
    } finally {
      clearTimeout(timer)
    }
  }
}
