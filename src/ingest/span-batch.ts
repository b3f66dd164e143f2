import type { LogRecord, Span } from '../model/index.ts'
import { estimateSpanBytes } from './estimate-span-bytes.ts'

/**
 * The spans of one record as the trace assembler takes them: already decoded (OTLP/JSON, tests),
 * or scanned protobuf (`scanOtlpProto`) whose spans are decoded only when asked for.
 */
export interface SpanBatch {
  readonly length: number
  traceId(i: number): string
  spanId(i: number): string
  /** True when span `i` has no parent. */
  isRoot(i: number): boolean
  /**
   * Span `i`, or a view of it with at least what the assembler's predicates and `isEnded` read (a
   * scanned record's role view: ids, parent, name, kind, times, role attributes, event names),
   * when it may be an agent or GenAI span; undefined when it cannot be one (the predicates are then
   * not asked). Not kept: {@link span} gives the span itself.
   */
  candidate(i: number): Span | undefined
  /**
   * True when span `i` has a string attribute that may hold messages (a scanned record's
   * `mayHoldMessages`): GenAI activity its role view cannot show, since the view holds only the
   * role attributes. Absent on decoded spans, whose predicates read every attribute.
   */
  mayHoldMessages?(i: number): boolean
  /** Span `i`, decoded. */
  span(i: number): Span
  /**
   * Present on a batch of log records (`logRecordBatch`) only: entry `i` is then no span but a log
   * record for span `spanId(i)`, attached to it as a span event when the trace is read.
   */
  logRecord?(i: number): LogRecord
  /** The size of span `i` for the byte cap when the record's size is unknown. */
  encodedBytes(i: number): number
  /**
   * True when the sampling door rejected span `i`'s trace by its rate and it is kept only for the
   * door's claims (see `SamplingDoor`); absent or false: the trace came in.
   */
  rejected?(i: number): boolean
  /** True when span `i` may make its rejected trace one the door's claims take. */
  claimed?(i: number): boolean
  /** Makes the batch hold only its own bytes (not the consumer's buffer around them): it is held long. */
  own?(): void
}

/** Decoded spans as a batch: every span is a candidate for the predicates. */
export function spanArrayBatch(spans: readonly Span[]): SpanBatch {
  return {
    length: spans.length,
    traceId: (i) => spans[i]!.traceId,
    spanId: (i) => spans[i]!.spanId,
    isRoot: (i) => {
      const parent = spans[i]!.parentSpanId
      return parent === undefined || parent === ''
    },
    candidate: (i) => spans[i],
    span: (i) => spans[i]!,
    encodedBytes: (i) => estimateSpanBytes(spans[i]!),
  }
}
