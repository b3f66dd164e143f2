import { defaultMaxBufferedBytes, spanCapFor } from './buffer-limits.ts'

/** The span buffer's byte cap when none is configured: from this process's memory limit. */
const maxBufferedBytes = defaultMaxBufferedBytes()

/**
 * Every default of the configuration, in one object: the schema fills them in, and a stage built
 * without the resolved config (a library user, a test) falls back to the same values, so a stage
 * never runs with a default of its own. The README's configuration table states these values.
 */
export const configDefaults = {
  kafka: {
    brokers: ['127.0.0.1:9092'],
    clientId: 'tracescore',
    topic: 'otlp_spans',
    groupId: 'tracescore',
    encoding: 'auto',
    fromBeginning: false,
    deadLetterTopic: 'otlp_spans_dlq',
    sessionTimeoutMs: 30_000,
    fetchMaxWaitMs: 100,
    repartition: false,
  },
  assembly: {
    settleMs: 2_000,
    maxTraceAgeMs: 120_000,
    /** Follows the byte cap (`spanCapFor`): set alone, `maxBufferedBytes` moves it too. */
    maxBufferedSpans: spanCapFor(maxBufferedBytes),
    maxBufferedBytes,
    rescoreLateSpans: false,
    maxInFlightTraces: 256,
  },
  ledger: {
    /** On when a registered scorer calls a judge: those are the runs a repeat costs money and may change. */
    enabled: 'auto' as boolean | 'auto',
    /** Empty: `<the topic the source reads>.score_ledger`. */
    topic: '',
    retentionMs: 24 * 60 * 60 * 1000,
    maxEntries: 200_000,
    onUnavailable: 'fail',
    startTimeoutMs: 60_000,
  },
  judges: { timeoutMs: 60_000, concurrency: 4 },
  sinks: {
    /** Per-request timeout of the HTTP sinks (OTLP, Phoenix, Langfuse). */
    timeoutMs: 10_000,
    otlpEndpoint: 'http://localhost:4318/v1/traces',
    phoenixUrl: 'http://localhost:6006',
    langfuseUrl: 'https://cloud.langfuse.com',
  },
  /** How long `tracescore run` waits, on SIGTERM, for in-flight traces before committing and leaving (the Helm chart's grace period exceeds it). */
  shutdown: { drainTimeoutMs: 30_000 },
  metrics: { port: 9464, host: '127.0.0.1' },
  log: { level: 'info' },
} as const
