import type { LogRecord } from '../../model/log-record.ts'

/**
 * Receives each decoded log record as soon as it is complete, with the size in bytes of its encoded
 * form (the `LogRecord` message in protobuf; its share of the payload in JSON), as
 * `OtlpSpanVisitor` does spans. Records before a decode error are not taken back.
 */
export type OtlpLogVisitor = (record: LogRecord, encodedBytes: number) => void
