import type { ConsumedRecord } from './consumer-port.ts'

/**
 * The header that marks a record of the repartitioned topic (`<topic>.by_trace`) holding log
 * records (an OTLP `ExportLogsServiceRequest`) rather than spans: the spans and the log records
 * of a trace meet on one partition of that topic, and the reader tells them apart by it.
 */
export const SIGNAL_HEADER = 'tracescore-signal'
/** The value of {@link SIGNAL_HEADER} on a log-records record. */
export const LOGS_SIGNAL = 'logs'

/** True when the record holds log records (its {@link SIGNAL_HEADER} says `logs`). */
export function isLogsRecord(record: ConsumedRecord): boolean {
  const header = record.headers?.[SIGNAL_HEADER]
  if (header === undefined) return false
  const value = Array.isArray(header) ? header[0] : header
  return value !== undefined && value.toString() === LOGS_SIGNAL
}
