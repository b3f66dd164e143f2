/** A JS value decoded from an OTLP `AnyValue`: string, boolean, number (int64 beyond 2^53 stays a decimal string), bytes, array or key-value object. */
export type AttributeValue =
  | string
  | boolean
  | number
  | Uint8Array
  | null
  | AttributeValue[]
  | { [key: string]: AttributeValue }

/** Attributes as a plain object, keys in the order they arrived. */
export type Attributes = Record<string, AttributeValue>

/** OTLP span kind, as the integer enum of the protocol. */
export const SpanKind = {
  UNSPECIFIED: 0,
  INTERNAL: 1,
  SERVER: 2,
  CLIENT: 3,
  PRODUCER: 4,
  CONSUMER: 5,
} as const
export type SpanKind = (typeof SpanKind)[keyof typeof SpanKind]

/** OTLP status code: 0 unset, 1 ok, 2 error. */
export const StatusCode = { UNSET: 0, OK: 1, ERROR: 2 } as const
export type StatusCode = (typeof StatusCode)[keyof typeof StatusCode]

export interface SpanStatus {
  code: StatusCode
  message?: string
}

export interface SpanEvent {
  name: string
  /** Decimal string of nanoseconds since the epoch (int64 kept exact). */
  timeUnixNano: string
  attributes: Attributes
  /**
   * Made from a log record correlated with the span (a log-based event, read from the logs topic),
   * not recorded on the span: the run notes then say which content came from log records.
   */
  fromLog?: true
}

export interface SpanLink {
  traceId: string
  spanId: string
  traceState?: string
  attributes: Attributes
}

export interface InstrumentationScope {
  name: string
  version?: string
  attributes?: Attributes
}

/**
 * The normalized span every stage works with, decoded from OTLP protobuf or JSON.
 * Ids are lowercase hex; times are decimal strings of nanoseconds (int64 exact).
 */
export interface Span {
  traceId: string
  spanId: string
  /** Absent (undefined) for root spans. */
  parentSpanId?: string
  traceState?: string
  name: string
  kind: SpanKind
  startTimeUnixNano: string
  endTimeUnixNano: string
  /**
   * Decoded from protobuf, a large span's attributes (and its events' and links') arrive as a view
   * that decodes them on first use and is then replaced by the plain object; it behaves as that
   * object, but `structuredClone` needs a copy (`{ ...span.attributes }`) and it cannot be frozen.
   */
  attributes: Attributes
  events: SpanEvent[]
  links: SpanLink[]
  status: SpanStatus
  /** Attributes of the resource that emitted the span (`service.name`, ...). */
  resource: Attributes
  scope: InstrumentationScope
}
