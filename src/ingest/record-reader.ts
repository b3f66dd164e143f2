import type { Span } from '../model/index.ts'
import type { Logger } from '../ops/logger.ts'
import type { ConsumedRecord, RecordBatch } from './consumer-port.ts'
import { type BadRecord, badRecordOf } from './dead-letter.ts'
import type { DeadLetterProducer } from './dead-letter-producer.ts'
import {
  decodeOtlpLogs,
  decodeOtlpTraces,
  detectOtlpEncoding,
  type OtlpEncodingOption,
} from './decode/index.ts'
import { scanOtlpProto } from './decode/scan-proto.ts'
import { logRecordBatch } from './log-batch.ts'
import type { OffsetTracker, RecordRef } from './offset-tracker.ts'
import type { PartitionWatermark } from './partition-watermark.ts'
import { type DoorFilter, doorFilterOf, type SamplingDoor, spanMayClaim } from './sampling-door.ts'
import { isLogsRecord } from './signal-header.ts'
import { type SpanBatch, spanArrayBatch } from './span-batch.ts'
import type { TraceAssembler } from './trace-assembler.ts'

/** Counters of what was read. */
interface ReadCounters {
  records: number
  emptyRecords: number
  /** Every span read, those the sampling door passed by included. */
  spans: number
  /** Spans (and traces, counted by their roots) the sampling door passed by as it read them. */
  passedBySpans: number
  passedByTraces: number
  /** Log records read that carry a trace and span id (they join their trace). */
  logRecords: number
  /** Log records read without a trace or span id: nothing to attach them to, dropped. */
  uncorrelatedLogRecords: number
}

/** Settings of the record reader. */
interface RecordReaderOptions {
  encoding: OtlpEncodingOption
  assembler: TraceAssembler<RecordRef>
  tracker: OffsetTracker
  deadLetters: DeadLetterProducer
  logger: Logger
  /** Told how far each batch advanced its partition (record times, read to the end or not). */
  watermark?: PartitionWatermark
  /** Traces no scorer can score are passed by as they are read (see `SamplingDoor`). */
  door?: SamplingDoor
}

/** Reads batches of OTLP records into the assembler. */
export interface RecordReader {
  /**
   * Reads a batch's records below `endOffset` (all when absent): each is decoded and its spans
   * buffered, held in the offset tracker until every trace it fed is done; undecodable ones go to
   * the dead letters and are held until they are there. Returns the last offset read. Synchronous:
   * nothing else happens while a batch is read.
   */
  read(batch: RecordBatch, endOffset?: number): string | undefined
  counters(): ReadCounters
}

/** Creates the record reader. */
export function createRecordReader(options: RecordReaderOptions): RecordReader {
  const { encoding, assembler, tracker, deadLetters, logger, watermark } = options
  const counters: ReadCounters = {
    records: 0,
    emptyRecords: 0,
    spans: 0,
    passedBySpans: 0,
    passedByTraces: 0,
    logRecords: 0,
    uncorrelatedLogRecords: 0,
  }
  const door = options.door && doorFilterOf(options.door)

  const readRecord = (record: ConsumedRecord, ref: RecordRef, bad: BadRecord[], badRefs: RecordRef[]) => {
    counters.records++
    const value = record.value
    if (value === null || value.length === 0) {
      counters.emptyRecords++
      tracker.release(ref)
      return
    }
    let spans: SpanBatch & Partial<PassedBy>
    const logs = isLogsRecord(record)
    try {
      spans = logs ? readLogRecords(value, encoding, counters) : readSpans(value, encoding, door)
    } catch (error) {
      bad.push(badRecordOf(ref.topic, ref.partition, record, error))
      badRefs.push(ref) // the reading's hold stays until the dead letter is produced
      return
    }
    if (logs) counters.logRecords += spans.length
    else {
      const passedBy = spans.passedBySpans ?? 0
      counters.spans += spans.length + passedBy
      if (passedBy > 0) {
        counters.passedBySpans += passedBy
        counters.passedByTraces += spans.passedByTraces ?? 0
      }
    }
    const { traces } = assembler.addBatch(spans, ref, value.length, recordTimeMs(record))
    tracker.hold(ref, traces)
    tracker.release(ref)
  }

  const sendDeadLetters = (bad: BadRecord[], refs: RecordRef[]) => {
    deadLetters.send(bad).then(
      () => {
        for (const ref of refs) tracker.release(ref)
      },
      (error: unknown) =>
        logger.warn(
          { err: error, records: refs.length },
          'dead letters not produced before shutdown; their offsets stay uncommitted',
        ),
    )
  }

  return {
    read(batch, endOffset) {
      const bad: BadRecord[] = []
      const badRefs: RecordRef[] = []
      let last: string | undefined
      let latestMs: number | undefined
      let reachedEnd = false
      for (const record of batch.records) {
        if (endOffset !== undefined && Number(record.offset) >= endOffset) {
          reachedEnd = true
          break
        }
        readRecord(record, tracker.open(batch.topic, batch.partition, record.offset), bad, badRefs)
        last = record.offset
        const time = recordTimeMs(record)
        if (time !== undefined && (latestMs === undefined || time > latestMs)) latestMs = time
      }
      if (bad.length > 0) sendDeadLetters(bad, badRefs)
      watermark?.advance(batch.partition, latestMs, reachedEnd || readToEnd(batch, last))
      return last
    },
    counters: () => ({ ...counters }),
  }
}

/** A record's time (its Kafka timestamp, epoch ms), if it has one. */
function recordTimeMs(record: ConsumedRecord): number | undefined {
  if (record.timestamp === undefined) return undefined
  const time = Number(record.timestamp)
  return Number.isFinite(time) && time >= 0 ? time : undefined
}

/**
 * True when reading reached the partition's end as the fetch saw it (its high watermark); a batch
 * that does not say counts as read to the end (the clock alone then settles its traces).
 */
function readToEnd(batch: RecordBatch, last: string | undefined): boolean {
  if (batch.highWatermark === undefined) return true
  const end = Number(batch.highWatermark)
  const next = last === undefined ? Number(batch.records[0]?.offset ?? end) : Number(last) + 1
  return next >= end
}

/** What a batch read through the sampling door says it passed by. */
interface PassedBy {
  passedBySpans: number
  passedByTraces: number
}

/**
 * A record's spans: protobuf is scanned (spans decoded later, when a trace of them is read),
 * OTLP/JSON decoded. A protobuf record the scan rejects is decoded for the decoder's own error,
 * which names the fault precisely (and should the decoder accept it after all, its spans are used).
 * With a sampling `door`, spans of traces it rejects are left out (counted in `passedBySpans`),
 * or, with the door's claims, kept flagged (see `scanOtlpProto`).
 */
export function readSpans(
  value: Buffer,
  encoding: OtlpEncodingOption,
  door?: DoorFilter,
): SpanBatch & Partial<PassedBy> {
  const chosen = encoding === 'auto' ? detectOtlpEncoding(value) : encoding
  if (chosen !== 'otlp_proto') return decodedThroughDoor(decodeOtlpTraces(value, encoding), door)
  try {
    return scanOtlpProto(value, door)
  } catch {
    return decodedThroughDoor(decodeOtlpTraces(value, encoding), door)
  }
}

/** Decoded spans as a batch, through the sampling door as `scanOtlpProto` applies it. */
function decodedThroughDoor(spans: Span[], door: DoorFilter | undefined): SpanBatch & Partial<PassedBy> {
  if (door === undefined) return spanArrayBatch(spans)
  const claims = door.claims
  if (claims !== undefined) {
    return {
      ...spanArrayBatch(spans),
      rejected: (i) => !door.keep(spans[i]!.traceId),
      claimed: (i) => spanMayClaim(spans[i]!, claims),
    }
  }
  const kept: Span[] = []
  let passedBySpans = 0
  let passedByTraces = 0
  for (const span of spans) {
    if (door.keep(span.traceId)) kept.push(span)
    else {
      passedBySpans++
      if (span.parentSpanId === undefined || span.parentSpanId === '') passedByTraces++
    }
  }
  return { ...spanArrayBatch(kept), passedBySpans, passedByTraces }
}

/**
 * A logs record's log records (an OTLP `ExportLogsServiceRequest`, marked by its signal header) as
 * a batch for the assembler: those with a trace and a span id; the others are counted and dropped.
 */
function readLogRecords(
  value: Buffer,
  encoding: OtlpEncodingOption,
  counters: Pick<ReadCounters, 'uncorrelatedLogRecords'>,
): SpanBatch {
  const all = decodeOtlpLogs(value, encoding)
  const correlated = all.filter((record) => record.traceId !== '' && record.spanId !== '')
  counters.uncorrelatedLogRecords += all.length - correlated.length
  return logRecordBatch(correlated)
}
