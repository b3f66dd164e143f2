import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { debugFromEnv } from './config/env.ts'
import { ConfigError, loadConfig, resolveConfig, type TracescoreConfig } from './config/index.ts'
import { prepareKafkajs } from './ingest/kafka-client.ts'
import { packageRoot } from './package-root.ts'

const USAGE = `tracescore — scores AI-agent traces from Kafka and writes the scores back into the traces

Usage:
  tracescore run [--config FILE]             consume the topic, score agent runs, deliver scores
  tracescore score FILE... [--config FILE] [--max-file-mib N]
                                             score OTLP files (protobuf, JSON, or Collector JSON lines);
                                             prints one JSON line per score; a file over N MiB
                                             (default 256) is refused
  tracescore inspect FILE... [--json]       what tracescore understands of the traces in OTLP files:
                                             conventions, runs and what each holds, parts not
                                             recorded, GenAI spans no run used
  tracescore inspect FILE... --profile P.json|P.ts... | --config FILE
                                             the same read with producer profiles: which source
                                             gave each field, what the profiles left unread
  tracescore inspect --suggest FILE...       a starting producer profile (JSON) for the files' spans
  tracescore replay --from OFFSET|TIME [--to OFFSET|TIME] [--rescore] [--config FILE]
                                             re-score a range of the topic into the sinks (with
                                             the score ledger on: only runs it lacks, unless --rescore)
  tracescore demo [--runs N] [--keep-broker] local broker + recorded agent traffic + scores shown;
                                             stops the broker it started unless --keep-broker
  tracescore --version | --help

Options of every command: --debug logs at level debug and prints the stack trace of an
unexpected error (as log.level=debug or TRACESCORE_LOG_LEVEL=debug do).

Exit codes: 0 done (score, inspect: every file read and decoded); 1 a file could not be read or decoded, or
an unexpected error; 2 a usage or configuration error (the message names the key).

Configuration: --config FILE, else ./config/tracescore.config.ts when present, else the embedded
defaults. Environment overrides: KAFKA_BROKERS, TRACESCORE_KAFKA_TOPIC, TRACESCORE_KAFKA_GROUP_ID,
TRACESCORE_KAFKA_ENCODING, TRACESCORE_KAFKA_FROM_BEGINNING, TRACESCORE_KAFKA_REPARTITION,
TRACESCORE_KAFKA_SSL, TRACESCORE_KAFKA_SASL_MECHANISM, TRACESCORE_KAFKA_SASL_USERNAME,
TRACESCORE_KAFKA_SASL_PASSWORD, TRACESCORE_LEDGER_ENABLED, TRACESCORE_LEDGER_TOPIC,
TRACESCORE_METRICS_PORT, TRACESCORE_METRICS_HOST, TRACESCORE_LOG_LEVEL;
sink and judge settings the configuration leaves unset: OTEL_EXPORTER_OTLP_*, PHOENIX_HOST,
PHOENIX_API_KEY, LANGFUSE_*, <PROVIDER>_API_KEY and <PROVIDER>_BASE_URL.`

/** Finds and loads the configuration: the --config file, ./config/tracescore.config.ts, or the defaults. */
export async function loadCliConfig(
  file: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TracescoreConfig> {
  if (file) {
    if (!existsSync(file)) throw new ConfigError(`config file not found: ${file}`)
    return loadConfig(resolve(file), env)
  }
  const local = resolve('config/tracescore.config.ts')
  if (existsSync(local)) return loadConfig(local, env)
  // config/tracescore.config.ts as built: Node strips no types under node_modules.
  const embedded = resolve(packageRoot, 'dist/examples/tracescore.config.js')
  if (existsSync(embedded)) return loadConfig(embedded, env)
  return resolveConfig({}, env)
}

/** Runs the command line; resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  prepareKafkajs() // before any command makes a kafkajs client (the demo's too)
  // --debug also turns the service's logs to debug (with stack traces), as log.level=debug does.
  const env = argv.includes('--debug') ? { ...process.env, TRACESCORE_LOG_LEVEL: 'debug' } : process.env
  let debug = debugFromEnv(env)
  const [command, ...rest] = argv.filter((arg) => arg !== '--debug')
  const configFor = async (file: string | undefined) => {
    const config = await loadCliConfig(file, env)
    debug ||= config.log.level === 'debug'
    return config
  }
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    console.log(USAGE)
    return command ? 0 : 1
  }
  if (command === '--version' || command === '-v') {
    const pkg = JSON.parse(await readFile(resolve(packageRoot, 'package.json'), 'utf8'))
    console.log(pkg.version)
    return 0
  }
  try {
    switch (command) {
      case 'run': {
        const { values } = parseArgs({ args: rest, options: { config: { type: 'string', short: 'c' } } })
        const config = await configFor(values.config)
        const { runService } = await import('./commands/run.ts')
        const { heapTuningFor, tuneHeap } = await import('./ops/heap-tuning.ts')
        const tuning = heapTuningFor(process.execArgv, process.env.NODE_OPTIONS)
        return await runService(config, { tuneHeap: () => tuneHeap(tuning) })
      }
      case 'score':
        return await scoreCommand(rest, configFor)
      case 'inspect': {
        const { values, positionals } = parseArgs({
          args: rest,
          allowPositionals: true,
          options: {
            json: { type: 'boolean' },
            profile: { type: 'string', multiple: true },
            config: { type: 'string', short: 'c' },
            suggest: { type: 'boolean' },
          },
        })
        if (positionals.length === 0) throw new UsageError('inspect needs at least one OTLP file')
        if (values.suggest || values.profile || values.config) {
          const profiling = await import('./commands/inspect-profile.ts')
          if (values.suggest) return await profiling.suggestFromFiles(positionals)
          const profiles = values.profile
            ? await profiling.loadProfileFiles(values.profile)
            : (await configFor(values.config)).conventions
          return await profiling.inspectWithProfiles(positionals, profiles)
        }
        const { inspectFiles } = await import('./commands/inspect.ts')
        return await inspectFiles(positionals, { json: values.json ?? false })
      }
      case 'replay':
        return await replayCommand(rest, configFor)
      case 'demo': {
        const { values } = parseArgs({
          args: rest,
          options: { runs: { type: 'string' }, 'keep-broker': { type: 'boolean' } },
        })
        const runs = values.runs === undefined ? undefined : Number(values.runs)
        if (runs !== undefined && !(Number.isInteger(runs) && runs > 0)) {
          throw new UsageError('--runs expects a positive integer')
        }
        const { runDemo } = await import('./commands/demo.ts')
        return await runDemo({ runs, keepBroker: values['keep-broker'] ?? false })
      }
      default:
        throw new UsageError(`unknown command: ${command}`)
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`tracescore: ${error.message}`)
      return error.exitCode
    }
    const code = (error as { code?: unknown }).code
    if (error instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) {
      console.error(`tracescore: ${(error as Error).message}\n\n${USAGE}`)
      return 2
    }
    console.error(`tracescore: ${describeUnexpected(error, debug)}`)
    return 1
  }
}

/** `tracescore score FILE... [--config FILE] [--max-file-mib N]`. */
async function scoreCommand(
  args: string[],
  configFor: (file: string | undefined) => Promise<TracescoreConfig>,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { config: { type: 'string', short: 'c' }, 'max-file-mib': { type: 'string' } },
  })
  if (positionals.length === 0) throw new UsageError('score needs at least one OTLP file')
  const maxMib = values['max-file-mib'] === undefined ? undefined : Number(values['max-file-mib'])
  if (maxMib !== undefined && !(maxMib > 0 && Number.isFinite(maxMib))) {
    throw new UsageError('--max-file-mib expects a number of MiB > 0')
  }
  const config = await configFor(values.config)
  const { scoreFiles } = await import('./commands/score.ts')
  const maxFileBytes = maxMib === undefined ? undefined : Math.floor(maxMib * 2 ** 20)
  return await scoreFiles(positionals, config, maxFileBytes === undefined ? {} : { maxFileBytes })
}

/**
 * An unexpected error for the terminal: its name and message, and the stack trace only in debug
 * mode (a trace helps a developer, and tells a user nothing but the install path).
 */
/** `tracescore replay`: its options read and checked, then the range replayed. */
async function replayCommand(
  args: string[],
  configFor: (file: string | undefined) => Promise<TracescoreConfig>,
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string', short: 'c' },
      from: { type: 'string' },
      to: { type: 'string' },
      rescore: { type: 'boolean' },
    },
  })
  if (!values.from) throw new UsageError('replay needs --from OFFSET|TIME')
  const { parseReplayBound, replayRange } = await import('./commands/replay.ts')
  const bounds = (() => {
    try {
      return {
        from: parseReplayBound(values.from),
        to: values.to ? parseReplayBound(values.to) : undefined,
      }
    } catch (error) {
      throw new UsageError((error as Error).message)
    }
  })()
  const config = await configFor(values.config)
  return await replayRange(config, bounds.from, bounds.to, { rescore: values.rescore === true })
}

function describeUnexpected(error: unknown, debug: boolean): string {
  try {
    if (!(error instanceof Error)) return String(error)
    if (debug && error.stack) return error.stack
    return `${error.name}: ${error.message} (run with --debug for the stack trace)`
  } catch {
    return 'an unexpected error that cannot be shown'
  }
}

class UsageError extends Error {}

const invokedDirectly = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)
if (invokedDirectly || process.env.TRACESCORE_CLI === '1') {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code
  })
}
