/**
 * The configuration of `tracescore run` for fault tests (`startService` in ./cli.ts starts it).
 * Configs are written under test/.tmp so that `import ... from 'tracescore'` resolves to the package.
 */
import type { OtlpEncodingOption } from '../../src/ingest/decode/index.ts'
import { writeTempFile } from './cli.ts'

/** What goes into a fault-test configuration file. */
export interface ServiceConfigOptions {
  brokers: string[]
  topic: string
  groupId: string
  deadLetterTopic: string
  otlpUrl: string
  /** `kafka.encoding`; when absent the service's default (`auto`). */
  encoding?: OtlpEncodingOption
  /**
   * `kafka.sessionTimeoutMs`; when absent the service's default (30 s). A killed process, or a
   * consumer kafkajs restarted after a broker outage (a new group member), gets its partitions
   * back only after the old member's session expired: fault tests that do either use a short one.
   */
  sessionTimeoutMs?: number
  /** No `assembly` settings at all: the service's defaults (the settings below are ignored). */
  defaultAssembly?: boolean
  settleMs?: number
  /** Default 60,000. */
  maxTraceAgeMs?: number
  maxBufferedSpans?: number
  maxBufferedBytes?: number
  /** Extra module-level code (imports first) and the `scorers` object literal; default: answered + tool-success. */
  preamble?: string
  scorers?: string
  /** Extra `judges` object literal. */
  judges?: string
  /** The `ledger` object literal (the score ledger); off when absent. */
  ledger?: string
  /** `kafka.logsTopic` (log records read beside the spans); sets `kafka.repartition`, which it needs. */
  logsTopic?: string
}

/** Writes a `defineConfig` module under test/.tmp and returns its path. */
export function writeServiceConfig(name: string, o: ServiceConfigOptions): string {
  const scorers =
    o.scorers ?? '{ answered: { scorer: answeredScorer }, toolSuccess: { scorer: toolSuccessScorer } }'
  const source = `// Written by a fault test (test/helpers/fault-process.ts).
import { defineConfig } from 'tracescore'
import { answeredScorer } from '../../config/scorers/answered.ts'
import { toolSuccessScorer } from '../../config/scorers/tool-success.ts'
${o.preamble ?? ''}
export default defineConfig({
  kafka: {
    brokers: ${JSON.stringify(o.brokers)},
    topic: ${JSON.stringify(o.topic)},
    groupId: ${JSON.stringify(o.groupId)},
    fromBeginning: true,
    deadLetterTopic: ${JSON.stringify(o.deadLetterTopic)},
    ${o.encoding ? `encoding: ${JSON.stringify(o.encoding)},` : ''}
    ${o.sessionTimeoutMs ? `sessionTimeoutMs: ${o.sessionTimeoutMs},` : ''}
    ${o.logsTopic ? `logsTopic: ${JSON.stringify(o.logsTopic)}, repartition: true,` : ''}
  },
  ${o.defaultAssembly ? '' : assemblyOf(o)}
  ${o.judges ? `judges: ${o.judges},` : ''}
  ${o.ledger ? `ledger: ${o.ledger},` : ''}
  scorers: ${scorers},
  sinks: { otlp: { endpoint: ${JSON.stringify(o.otlpUrl)}, protocol: 'http/protobuf', timeoutMs: 5000 } },
  log: { level: 'info' },
})
`
  return writeTempFile(`${name}.config.ts`, source)
}

/** The `assembly` settings of a fault-test configuration. */
function assemblyOf(o: ServiceConfigOptions): string {
  return `assembly: {
    settleMs: ${o.settleMs ?? 200},
    maxTraceAgeMs: ${o.maxTraceAgeMs ?? 60_000},
    maxBufferedSpans: ${o.maxBufferedSpans ?? 200_000},
    maxBufferedBytes: ${o.maxBufferedBytes ?? 256 * 1024 * 1024},
  },`
}
