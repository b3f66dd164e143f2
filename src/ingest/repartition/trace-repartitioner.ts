import { type Consumer, type EachBatchPayload, Kafka, logLevel, type Message, type Producer } from 'kafkajs'
import type { Span } from '../../model/index.ts'
import { registerCompressionCodecs } from '../codecs.ts'
import { type BadRecord, deadLetterMessage, errorCode } from '../dead-letter.ts'
import { decodeOtlpTraces, type OtlpEncodingOption } from '../decode/index.ts'
import { type IngestLogger, stderrLogger } from '../ingest-logger.ts'
import { encodeSpansAsOtlpJson } from './encode-otlp-json.ts'

/** Settings of the repartition stage. */
export interface TraceRepartitionerOptions {
  brokers?: string[]
  kafka?: Kafka
  clientId?: string
  /** Consumer group of the stage. Default `tracescore-repartition`. */
  groupId?: string
  /** Raw topic, records not keyed by trace. Default `otlp_spans`. */
  sourceTopic?: string
  /** Internal topic of per-trace records keyed by hex trace id (`otlp_json`). Default `<sourceTopic>.by_trace`. */
  targetTopic?: string
  /** Encoding of the raw records. Default `auto` (protobuf or OTLP/JSON, per record). */
  encoding?: OtlpEncodingOption
  /** Undecodable records go here; `false` drops them. Default `<sourceTopic>_dlq`. */
  deadLetterTopic?: string | false
  fromBeginning?: boolean
  sessionTimeout?: number
  logger?: IngestLogger
}

/** Counters of the repartition stage. */
export interface TraceRepartitionerStats {
  records: number
  spans: number
  traceRecords: number
  deadLetters: number
  commits: number
}

/** A running repartition stage. */
export interface TraceRepartitioner {
  start(): Promise<void>
  stop(): Promise<void>
  stats(): TraceRepartitionerStats
  /** The internal topic the span source should consume (with encoding `otlp_json`). */
  readonly targetTopic: string
}

/**
 * Gives each trace to one instance when the upstream records are not keyed by trace: consumes the
 * raw topic, splits each record's spans by trace, produces one record per trace keyed by the 32-hex
 * trace id (like the Collector's `partition_traces_by_id`) to an internal topic, with acks from all
 * replicas, and commits the raw offsets only after that produce succeeded.
 */
export function createTraceRepartitioner(options: TraceRepartitionerOptions): TraceRepartitioner {
  const sourceTopic = options.sourceTopic ?? 'otlp_spans'
  const targetTopic = options.targetTopic ?? `${sourceTopic}.by_trace`
  const dlqTopic = options.deadLetterTopic === undefined ? `${sourceTopic}_dlq` : options.deadLetterTopic
  const encoding = options.encoding ?? 'auto'
  const log = options.logger ?? stderrLogger
  // Records may come snappy, lz4 or zstd compressed (the Collector's producer.compression).
  registerCompressionCodecs()
  const kafka =
    options.kafka ??
    new Kafka({
      clientId: options.clientId ?? 'tracescore-repartition',
      brokers: options.brokers ?? ['127.0.0.1:9092'],
      logLevel: logLevel.WARN,
    })
  const counters = { records: 0, spans: 0, traceRecords: 0, deadLetters: 0, commits: 0 }
  const loggedCodes = new Set<string>()
  let consumer: Consumer | undefined
  let producer: Producer | undefined

  const eachBatch = async ({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload) => {
    const traceMessages: Message[] = []
    const deadLetters: Message[] = []
    let last: string | undefined
    for (const message of batch.messages) {
      if (!isRunning() || isStale()) break
      last = message.offset
      counters.records++
      if (message.value === null || message.value.length === 0) continue
      let spans: Span[]
      try {
        spans = decodeOtlpTraces(message.value, encoding)
      } catch (error) {
        const bad: BadRecord = {
          topic: sourceTopic,
          partition: batch.partition,
          offset: message.offset,
          key: message.key,
          value: message.value,
          error,
        }
        if (message.headers !== undefined) bad.headers = message.headers
        const code = errorCode(error)
        if (!loggedCodes.has(code)) {
          loggedCodes.add(code)
          log.warn(
            { err: error, code, sample: message.value.subarray(0, 64).toString('base64') },
            'undecodable record sent to the dead-letter topic',
          )
        }
        deadLetters.push(deadLetterMessage(bad))
        continue
      }
      counters.spans += spans.length
      const byTrace = new Map<string, Span[]>()
      for (const span of spans) {
        const list = byTrace.get(span.traceId)
        if (list === undefined) byTrace.set(span.traceId, [span])
        else list.push(span)
      }
      for (const [traceId, traceSpans] of byTrace) {
        const out: Message = { key: traceId, value: encodeSpansAsOtlpJson(traceSpans) }
        if (message.timestamp !== undefined) out.timestamp = message.timestamp
        traceMessages.push(out)
      }
    }
    if (last === undefined) return
    const topicMessages = [{ topic: targetTopic, messages: traceMessages }]
    if (dlqTopic !== false && deadLetters.length > 0)
      topicMessages.push({ topic: dlqTopic, messages: deadLetters })
    if (traceMessages.length > 0 || deadLetters.length > 0) {
      await producer!.sendBatch({
        topicMessages: topicMessages.filter((t) => t.messages.length > 0),
        acks: -1,
      })
    }
    counters.traceRecords += traceMessages.length
    counters.deadLetters += deadLetters.length
    resolveOffset(last)
    const offsets = [{ topic: sourceTopic, partition: batch.partition, offset: String(BigInt(last) + 1n) }]
    await consumer!.commitOffsets(offsets)
    counters.commits++
    await heartbeat()
  }

  return {
    targetTopic,
    async start() {
      producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: true })
      await producer.connect()
      consumer = kafka.consumer({
        groupId: options.groupId ?? 'tracescore-repartition',
        sessionTimeout: options.sessionTimeout ?? 30_000,
      })
      await consumer.connect()
      await consumer.subscribe({ topics: [sourceTopic], fromBeginning: options.fromBeginning ?? false })
      await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch })
    },
    async stop() {
      await consumer?.disconnect()
      await producer?.disconnect()
      consumer = undefined
      producer = undefined
    },
    stats: () => ({ ...counters }),
  }
}
