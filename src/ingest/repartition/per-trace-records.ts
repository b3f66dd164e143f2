import type { Message } from 'kafkajs'
import { groupByTrace } from '../../model/index.ts'
import { decodeOtlpLogs, decodeOtlpTraces, type OtlpEncodingOption } from '../decode/index.ts'
import { LOGS_SIGNAL, SIGNAL_HEADER } from '../signal-header.ts'
import { encodeLogRecordsAsOtlpJson, encodeSpansAsOtlpJson } from './encode-otlp-json.ts'

/** What one raw record gives the repartitioned topic. */
export interface PerTraceRecords {
  /** One record per trace, keyed by the 32-hex trace id. */
  messages: Message[]
  /** Spans or log records read. */
  items: number
  /** Log records without a trace or span id, left out (nothing to attach them to). */
  dropped: number
}

/** Which signal a raw topic carries: its records are decoded and re-encoded as that. */
export type RepartitionSignal = 'spans' | 'logs'

/**
 * Splits one raw record (an OTLP export request of `signal`) into one OTLP/JSON record per trace,
 * keyed by trace id and stamped with the raw record's time; log records are marked with the
 * signal header. Throws `OtlpDecodeError` when the value does not decode.
 */
export function perTraceRecords(
  signal: RepartitionSignal,
  value: Buffer,
  encoding: OtlpEncodingOption,
  timestamp: string | undefined,
): PerTraceRecords {
  const message = (key: string, json: string): Message => {
    const out: Message = { key, value: json }
    if (signal === 'logs') out.headers = { [SIGNAL_HEADER]: LOGS_SIGNAL }
    if (timestamp !== undefined) out.timestamp = timestamp
    return out
  }
  if (signal === 'spans') {
    const spans = decodeOtlpTraces(value, encoding)
    const messages = [...groupByTrace(spans)].map(([id, list]) => message(id, encodeSpansAsOtlpJson(list)))
    return { messages, items: spans.length, dropped: 0 }
  }
  const records = decodeOtlpLogs(value, encoding)
  const correlated = records.filter((record) => record.traceId !== '' && record.spanId !== '')
  const messages = [...groupByTrace(correlated)].map(([id, list]) =>
    message(id, encodeLogRecordsAsOtlpJson(list)),
  )
  return { messages, items: records.length, dropped: records.length - correlated.length }
}
