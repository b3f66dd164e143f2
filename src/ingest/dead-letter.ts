import type { IHeaders, Message } from 'kafkajs'

/** Headers tracescore adds to a dead-lettered record. */
export const DeadLetterHeader = {
  error: 'tracescore-error',
  errorCode: 'tracescore-error-code',
  topic: 'tracescore-original-topic',
  partition: 'tracescore-original-partition',
  offset: 'tracescore-original-offset',
} as const

/** A consumed record that could not be decoded. */
export interface BadRecord {
  topic: string
  partition: number
  offset: string
  key: Buffer | null
  value: Buffer | null
  headers?: IHeaders
  timestamp?: string
  error: unknown
}

/** The bad-record description of a consumed record that failed to decode. */
export function badRecordOf(
  topic: string,
  partition: number,
  record: {
    offset: string
    key: Buffer | null
    value: Buffer | null
    headers?: IHeaders
    timestamp?: string
  },
  error: unknown,
): BadRecord {
  const bad: BadRecord = {
    topic,
    partition,
    offset: record.offset,
    key: record.key,
    value: record.value,
    error,
  }
  if (record.headers !== undefined) bad.headers = record.headers
  if (record.timestamp !== undefined) bad.timestamp = record.timestamp
  return bad
}

/** The machine-readable reason of a decode failure (`OtlpDecodeError.code`, else the error's name). */
export function errorCode(error: unknown): string {
  if (error !== null && typeof error === 'object') {
    const code = (error as { code?: unknown }).code
    if (typeof code === 'string' && code !== '') return code
    const name = (error as { name?: unknown }).name
    if (typeof name === 'string' && name !== '') return name
  }
  return 'unknown'
}

/**
 * The dead-letter copy of a bad record: the original key, value and headers, plus the error and
 * where the record came from in `tracescore-*` headers.
 */
export function deadLetterMessage(record: BadRecord): Message {
  const headers: IHeaders = {}
  for (const [name, value] of Object.entries(record.headers ?? {})) {
    if (value !== undefined) headers[name] = value
  }
  headers[DeadLetterHeader.error] =
    record.error instanceof Error ? record.error.message : String(record.error)
  headers[DeadLetterHeader.errorCode] = errorCode(record.error)
  headers[DeadLetterHeader.topic] = record.topic
  headers[DeadLetterHeader.partition] = String(record.partition)
  headers[DeadLetterHeader.offset] = record.offset
  const message: Message = { key: record.key, value: record.value, headers }
  if (record.timestamp !== undefined) message.timestamp = record.timestamp
  return message
}
