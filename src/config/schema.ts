import { existsSync } from 'node:fs'
import { z } from 'zod'
import { isPemText } from '../ingest/kafka-security.ts'
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
    conventions: z
      .array(z.enum(['mastra', 'genai', 'ai-sdk', 'openinference', 'traceloop', 'genkit']))
      .optional(),
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
        ssl: ssl.default(false),
        sasl: sasl.optional(),
      })
      .strict()
      .prefault({}),
    assembly: z
      .object({
        settleMs: z.number().int().nonnegative().default(d.assembly.settleMs),
        maxTraceAgeMs: z.number().int().positive().default(d.assembly.maxTraceAgeMs),
        maxBufferedSpans: z.number().int().positive().default(d.assembly.maxBufferedSpans),
        maxBufferedBytes: z.number().int().positive().default(d.assembly.maxBufferedBytes),
        rescoreLateSpans: z.boolean().default(d.assembly.rescoreLateSpans),
        /** Traces scored and delivered at once (judge calls stay bounded by judges.*). */
        maxInFlightTraces: z.number().int().positive().default(d.assembly.maxInFlightTraces),
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
