/**
 * Agent-run traffic for fault tests and benchmarks: one OTLP protobuf record per trace (as the
 * Collector's Kafka exporter writes with `partition_traces_by_id`), produced to explicit
 * partitions so the offset of every run is known, and the at-least-once checks that use them.
 */
import type { Kafka, Producer } from 'kafkajs'
import { encodeOtlpProto, generateAgentTraffic } from '../../src/ingest/testing/agent-traffic.ts'

/** One agent run ready to produce. */
export interface RunRecord {
  traceId: string
  agentSpanId: string
  /** The record value: an `ExportTraceServiceRequest` with the run's spans. */
  value: Buffer
  spans: number
}

/** Where a produced run landed. */
export interface Placement {
  partition: number
  offset: number
  /** Wall-clock ms when the broker acknowledged it. */
  producedAt: number
}

/** `n` agent runs (agent, chat and tool spans; 5 spans each with the default 2 tools). */
export function makeRuns(n: number, seed = 1, toolsPerRun = 2): RunRecord[] {
  const traffic = generateAgentTraffic({ runs: n, seed, toolsPerRun })
  return traffic.runs.map((run) => ({
    traceId: run.traceId,
    agentSpanId: run.agentSpanId,
    value: encodeOtlpProto(run.spans),
    spans: run.spans.length,
  }))
}

/** The key of a run in receivers and maps: `traceId/agentSpanId`. */
export const runKey = (run: { traceId: string; agentSpanId: string }): string =>
  `${run.traceId}/${run.agentSpanId}`

/** Options of `produceRuns`. */
export interface ProduceOptions {
  partitions: number
  /** Records per `send`. Default 50. */
  batch?: number
  /** Runs per second; unlimited when absent. */
  ratePerSec?: number
  /** Called after each acknowledged batch. */
  onBatch?: (produced: number) => void
  /** Stops producing early when it returns true. */
  stopped?: () => boolean
  /** Compression codec id (kafkajs `CompressionTypes`). */
  compression?: number
}

/**
 * Produces the runs in order, run `i` to partition `i % partitions`, keyed by trace id, and
 * returns where each landed. A failed send (broker down) is retried until it succeeds, so the
 * producer survives a broker restart as the Collector's exporter does.
 */
export async function produceRuns(
  producer: Producer,
  topic: string,
  runs: readonly RunRecord[],
  options: ProduceOptions,
): Promise<Map<string, Placement>> {
  const placements = new Map<string, Placement>()
  const batch = options.batch ?? 50
  const started = Date.now()
  for (let i = 0; i < runs.length; i += batch) {
    if (options.stopped?.()) break
    if (options.ratePerSec) {
      const due = started + (i / options.ratePerSec) * 1000
      const wait = due - Date.now()
      if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    }
    const slice = runs.slice(i, i + batch)
    const messages = slice.map((run, k) => ({
      key: run.traceId,
      value: run.value,
      partition: (i + k) % options.partitions,
    }))
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await producer.send({ topic, messages, acks: -1, compression: options.compression })
        const at = Date.now()
        const base = new Map(result.map((r) => [r.partition, Number(r.baseOffset)]))
        const next = new Map<number, number>()
        slice.forEach((run, k) => {
          const partition = messages[k]!.partition
          const index = next.get(partition) ?? 0
          next.set(partition, index + 1)
          placements.set(runKey(run), { partition, offset: base.get(partition)! + index, producedAt: at })
        })
        break
      } catch (error) {
        if (attempt > 600) throw error
        await new Promise((r) => setTimeout(r, 250))
      }
    }
    options.onBatch?.(Math.min(i + batch, runs.length))
  }
  return placements
}

/** The committed offsets of a group per partition (-1 when none), read with a fresh admin client. */
export async function groupOffsets(
  kafka: Kafka,
  groupId: string,
  topic: string,
): Promise<Map<number, number>> {
  const admin = kafka.admin()
  await admin.connect()
  try {
    const [result] = await admin.fetchOffsets({ groupId, topics: [topic] })
    return new Map((result?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]))
  } finally {
    await admin.disconnect()
  }
}

/**
 * The at-least-once invariant at one instant: every run whose record lies below the committed
 * offset of its partition has had all its expected scores delivered. Returns the violations.
 */
export function commitViolations(
  committed: Map<number, number>,
  placements: Map<string, Placement>,
  deliveredRuns: ReadonlySet<string>,
): string[] {
  const out: string[] = []
  for (const [key, placement] of placements) {
    const c = committed.get(placement.partition) ?? -1
    if (placement.offset < c && !deliveredRuns.has(key)) out.push(key)
  }
  return out
}
