import { existsSync } from 'node:fs'
import { z } from 'zod'
import { isPemText } from '../ingest/kafka-security.ts'
import { CONVENTIONS, RUN_PARTS } from '../model/index.ts'
import { profilesSchema } from '../transform/profiles/profile-schema.ts'
import { spanCapFor } from './buffer-limits.ts'
import { configDefaults as d } from './defaults.ts'
import { httpUrlProblem } from './http-url.ts'

/** An http(s) endpoint without user info (a password in a URL would reach logs and errors). */
const httpUrl = z.string().superRefine((value, context) => {
  const problem = httpUrlProblem(value)
  if (problem) context.addIssue({ code: 'custom', message: problem })
})

/** Anything with an `id` and a `run(input)` method: a `createScorer` scorer or a Mastra one. */
const scorerLike = z.custom<{ id: string; run: (input: any) => Promise<any> }>(
  (value) => {
    try {
      return (
        typeof value === 'object' &&
        value !== null &&
        typeof (value as { id?: unknown }).id === 'string' &&
        typeof (value as { run?: unknown }).run === 'function'
      )
    } catch {
      return false // a getter that throws: reported as not a scorer, naming the key
    }
  },
  { message: 'expected a scorer: an object with a string `id` and a `run(input)` method' },
)

const sampling = z.discriminatedUnion('type', [
  z.object({ type: z.literal('none') }),
  z.object({ type: z.literal('ratio'), rate: z.number().min(0).max(1) }),
])

/** Which runs a scorer sees; every given criterion must match. */
const filter = z
  .object({
    agentNames: z.array(z.string()).optional(),
    agentIds: z.array(z.string()).optional(),
    services: z.array(z.string()).optional(),
    conventions: z.array(z.enum(CONVENTIONS)).optional(),
    status: z.enum(['ok', 'error']).optional(),
    /** Predicate over the run; a throw counts as "no match" (fail closed). */
    where: z.custom<(run: any) => boolean>((v) => typeof v === 'function', 'expected a function').optional(),
  })
  .strict()

const scorerEntry = z
  .object({
    scorer: scorerLike,
    sampling: sampling.optional(),
    filter: filter.optional(),
    /** Score these runs whatever the sampling says. */
    alwaysScore: z
      .object({ errors: z.boolean().optional(), agentNames: z.array(z.string()).optional() })
      .optional(),
    /** Daily judge-token budget; when spent the scorer's runs are recorded as skipped for budget. */
    dailyTokenBudget: z.number().int().positive().optional(),
    /**
     * Fence the run's text (messages, tool arguments and results) with per-request nonce markers
     * in the prompts of `createScorer` prompt steps, and name the markers to the judge. Default true.
     */
    fenceTraceContent: z.boolean().optional(),
    /**
     * The scorer's version in the score ledger's key (with the trace, agent span and scorer id):
     * change it when the scorer changes, and its runs are scored again. Default: the scorer's own
     * string `version` property, else `'1'`.
     */
    version: z.string().min(1).optional(),
    /**
     * The parts of an agent run the scorer needs recorded (overrides what the scorer says); a run
     * whose trace lacks one is `not-scorable` without running the scorer.
     */
    requires: z.array(z.enum(RUN_PARTS)).optional(),
    /** Redaction applied to the run before any judge sees it. */
    redact: z
      .object({
        builtins: z.array(z.enum(['email', 'api-key', 'card-number', 'bearer-token'])).optional(),
        custom: z.array(z.custom<(text: string) => string>((v) => typeof v === 'function')).optional(),
      })
      .optional(),
  })
  .strict()

const judgeModelLimits = z
  .object({
    concurrency: z.number().int().positive().default(d.judges.concurrency),
    requestsPerMinute: z.number().positive().optional(),
    tokensPerMinute: z.number().positive().optional(),
  })
  .strict()

const sasl = z.discriminatedUnion('mechanism', [
  z.object({ mechanism: z.literal('plain'), username: z.string(), password: z.string() }),
  z.object({ mechanism: z.literal('scram-sha-256'), username: z.string(), password: z.string() }),
  z.object({ mechanism: z.literal('scram-sha-512'), username: z.string(), password: z.string() }),
])

/** PEM text, or the path of a readable PEM file (read when the Kafka clients are made). */
const pemSource = z
  .string()
  .min(1)
  .refine((v) => isPemText(v) || existsSync(v), 'expected PEM text or the path of an existing PEM file')

/** `true` (the system's CAs), or TLS options: a private CA, a client certificate for mTLS. */
const ssl = z.union([
  z.boolean(),
  z
    .object({
      ca: z.union([pemSource, z.array(pemSource).min(1)]).optional(),
      cert: pemSource.optional(),
      key: pemSource.optional(),
      passphrase: z.string().optional(),
      rejectUnauthorized: z.boolean().optional(),
      servername: z.string().min(1).optional(),
    })
    .strict(),
])

/** The validated configuration, with every default filled in. */
export const configSchema = z
  .object({
    kafka: z
      .object({
        brokers: z
          .array(z.string().regex(/^[^:\s]+:\d+$/, 'expected host:port'))
          .min(1)
          .default([...d.kafka.brokers]),
        clientId: z.string().default(d.kafka.clientId),
        topic: z.string().min(1).default(d.kafka.topic),
        groupId: z.string().min(1).default(d.kafka.groupId),
        /** `auto` tells protobuf from OTLP/JSON per record. */
        encoding: z.enum(['auto', 'otlp_proto', 'otlp_json']).default(d.kafka.encoding),
        fromBeginning: z.boolean().default(d.kafka.fromBeginning),
        deadLetterTopic: z.string().min(1).default(d.kafka.deadLetterTopic),
        /**
         * The consumer's group session (kafkajs `sessionTimeout`): how long partitions stay with a
         * member that stopped heartbeating. It also bounds recovery after a broker outage: kafkajs
         * rejoins as a new member and the coordinator waits for the old one's session to expire.
         */
        sessionTimeoutMs: z.number().int().positive().default(d.kafka.sessionTimeoutMs),
        /**
         * Longest wait of a fetch on the broker (kafkajs `maxWaitTimeInMs`, Java's
         * `fetch.max.wait.ms`). kafkajs also sleeps this long, uninterruptibly, whenever every
         * partition is paused, so reading resumes up to this long after backpressure lifts.
         */
        fetchMaxWaitMs: z.number().int().positive().max(60_000).default(d.kafka.fetchMaxWaitMs),
        /** When set, every (run, scorer) decision is produced here as one JSON record keyed by trace id. */
        decisionsTopic: z.string().min(1).optional(),
        /** Re-key raw records by trace id through an internal topic (when upstream does not). */
        repartition: z.boolean().default(d.kafka.repartition),
        /**
         * Topic of OTLP log records (the Collector's `otlp_logs`) read beside `topic`: log records
         * with a trace and span id join their trace as span events. Off (unset) by default; needs
         * `repartition`, which brings a trace's spans and log records onto one partition.
         */
        logsTopic: z.string().min(1).optional(),
        ssl: ssl.default(false),
        sasl: sasl.optional(),
      })
      .strict()
      .superRefine((kafka, context) => {
        if (kafka.logsTopic === undefined) return
        const problem =
          kafka.logsTopic === kafka.topic
            ? `must differ from kafka.topic (${kafka.topic}): spans and log records are read from two topics`
            : !kafka.repartition
              ? 'needs kafka.repartition: true (the spans and log records of a trace are joined on one partition of the repartitioned topic)'
              : undefined
        if (problem) context.addIssue({ code: 'custom', path: ['logsTopic'], message: problem })
      })
      .prefault({}),
    assembly: z
      .object({
        settleMs: z.number().int().nonnegative().default(d.assembly.settleMs),
        maxTraceAgeMs: z.number().int().positive().default(d.assembly.maxTraceAgeMs),
        /** Default: follows `maxBufferedBytes` (`spanCapFor`). */
        maxBufferedSpans: z.number().int().positive().optional(),
        /** Default: a quarter of the process's memory limit (`defaultMaxBufferedBytes`). */
        maxBufferedBytes: z.number().int().positive().default(d.assembly.maxBufferedBytes),
        rescoreLateSpans: z.boolean().default(d.assembly.rescoreLateSpans),
        /** Traces scored and delivered at once (judge calls stay bounded by judges.*). */
        maxInFlightTraces: z.number().int().positive().default(d.assembly.maxInFlightTraces),
      })
      .strict()
      .transform((a) => ({ ...a, maxBufferedSpans: a.maxBufferedSpans ?? spanCapFor(a.maxBufferedBytes) }))
      .prefault({}),
    /** The score ledger (src/ledger): a run already scored is not scored again, its score re-delivered. */
    ledger: z
      .object({
        /** `'auto'`: on when a registered scorer has a judge (prompt-object) step. */
        enabled: z.union([z.boolean(), z.literal('auto')]).default(d.ledger.enabled),
        /** Compacted topic of the ledger; default `<the topic the source reads>.score_ledger`. */
        topic: z.string().default(d.ledger.topic),
        /** Entries older than this are forgotten (in memory) and deleted by the broker (`retention.ms`). */
        retentionMs: z.number().int().positive().default(d.ledger.retentionMs),
        /** Most entries an instance holds in memory; past it the oldest of a partition are forgotten. */
        maxEntries: z.number().int().positive().default(d.ledger.maxEntries),
        /** When the ledger topic cannot be created or read at start-up: `fail` (exit 1) or `score-without`. */
        onUnavailable: z.enum(['fail', 'score-without']).default(d.ledger.onUnavailable),
        /** How long start-up tries to create or read the ledger topic before `onUnavailable` applies. */
        startTimeoutMs: z.number().int().positive().default(d.ledger.startTimeoutMs),
      })
      .strict()
      .prefault({}),
    judges: z
      .object({
        timeoutMs: z.number().int().positive().default(d.judges.timeoutMs),
        models: z.record(z.string(), judgeModelLimits).default({}),
        /** Limits for models not listed in `models`. */
        defaultLimits: judgeModelLimits.prefault({}),
        /**
         * Provider keys and endpoints for `'provider/model'` ids (`OPENAI_API_KEY`,
         * `<NAME>_BASE_URL`...); filled from the environment, entries given here win.
         */
        providerEnv: z.record(z.string(), z.string()).default({}),
      })
      .strict()
      .prefault({}),
    scorers: z.record(z.string(), scorerEntry).default({}),
    sinks: z
      .object({
        otlp: z
          .union([
            z.literal(false),
            z
              .object({
                endpoint: httpUrl.optional(),
                protocol: z.enum(['http/protobuf', 'http/json']).optional(),
                headers: z.record(z.string(), z.string()).optional(),
                timeoutMs: z.number().int().positive().optional(),
                compression: z.enum(['gzip', 'none']).optional(),
                passThreshold: z.number().optional(),
                /** `main` (default): score spans are built and sent on the pipeline's thread; `worker`: beside it. */
                exportThread: z.enum(['worker', 'main']).optional(),
                /**
                 * Also send each score as a `gen_ai.evaluation.result` log record (OTLP/HTTP JSON) on
                 * the agent span. Default true; turns itself off when the backend takes no logs.
                 */
                logs: z.boolean().optional(),
                /** Where the log records go. Default: `endpoint` with `/v1/traces` replaced by `/v1/logs`. */
                logsEndpoint: httpUrl.optional(),
              })
              .strict(),
          ])
          .default({}),
        kafka: z
          .object({ topic: z.string().min(1) })
          .strict()
          .optional(),
        /** Unset fields come from `PHOENIX_HOST` / `PHOENIX_API_KEY` (src/config/env.ts). */
        phoenix: z.object({ url: httpUrl.optional(), apiKey: z.string().optional() }).strict().optional(),
        /** Unset fields come from the `LANGFUSE_*` variables (src/config/env.ts). */
        langfuse: z
          .object({
            url: httpUrl.optional(),
            publicKey: z.string().optional(),
            secretKey: z.string().optional(),
            environment: z.string().optional(),
          })
          .strict()
          .optional(),
        stdout: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    metrics: z
      .object({
        port: z.number().int().min(0).max(65_535).default(d.metrics.port),
        host: z.string().default(d.metrics.host),
      })
      .strict()
      .prefault({}),
    log: z
      .object({ level: z.enum(['debug', 'info', 'warn', 'error']).default(d.log.level) })
      .strict()
      .prefault({}),
    /**
     * Producer profiles (`docs/producer-profiles.md`): how to read spans of producers no built-in
     * reader knows, tried in order before the built-in readers.
     */
    conventions: profilesSchema.default([]),
  })
  .strict()

/** The configuration as users write it (defaults may be omitted). */
export type TracescoreConfigInput = z.input<typeof configSchema>
/** The configuration after validation, defaults filled in. */
export type TracescoreConfig = z.output<typeof configSchema>
/** One registered scorer with its sampling, filter, budget and redaction. */
export type ScorerEntry = z.output<typeof scorerEntry>
/** Filter criteria of a scorer entry. */
export type RunFilter = z.output<typeof filter>
