/**
 * `tracescore run` as a user runs it (`node bin/tracescore.js run --config FILE`, the built dist/)
 * for fault tests: readiness from /readyz, SIGKILL, graceful stop, peak resident memory from
 * /proc, metrics scraped from /metrics. Configs are written under test/.tmp so that
 * `import ... from 'tracescore'` resolves to the package.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import type { OtlpEncodingOption } from '../../src/ingest/decode/index.ts'
import { repoRoot, writeTempFile } from './cli.ts'

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

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
  },
  assembly: {
    settleMs: ${o.settleMs ?? 200},
    maxTraceAgeMs: ${o.maxTraceAgeMs ?? 60_000},
    maxBufferedSpans: ${o.maxBufferedSpans ?? 200_000},
    maxBufferedBytes: ${o.maxBufferedBytes ?? 256 * 1024 * 1024},
  },
  ${o.judges ? `judges: ${o.judges},` : ''}
  scorers: ${scorers},
  sinks: { otlp: { endpoint: ${JSON.stringify(o.otlpUrl)}, protocol: 'http/protobuf', timeoutMs: 5000 } },
  log: { level: 'info' },
})
`
  return writeTempFile(`${name}.config.ts`, source)
}

/** A running `tracescore run` process. */
export interface ServiceProcess {
  readonly child: ChildProcess
  readonly pid: number
  readonly metricsUrl: string
  /** stdout + stderr so far. */
  output(): string
  /** Resolves with the exit code (or signal) when the process ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** Peak resident set size so far, in MiB (VmHWM), or NaN once exited. */
  peakRssMiB(): number
  /** A Prometheus sample by metric name (sum over label sets), or undefined. */
  metric(name: string): Promise<number | undefined>
  kill9(): Promise<void>
  /** SIGTERM, then SIGKILL after `timeoutMs`. */
  stop(timeoutMs?: number): Promise<number | null>
}

/**
 * Spawns `tracescore run --config FILE` and waits until /readyz answers 200. In a checkout shared
 * with other builds, dist/ can be missing for a moment while it is rebuilt: that start is retried.
 */
export async function startService(
  configFile: string,
  options: { env?: NodeJS.ProcessEnv; readyTimeoutMs?: number } = {},
): Promise<ServiceProcess> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await startServiceOnce(configFile, options)
    } catch (error) {
      const rebuilding = /ERR_MODULE_NOT_FOUND[\s\S]*dist\/|Cannot find module '[^']*\/dist\//.test(
        String(error),
      )
      if (!rebuilding || attempt >= 30) throw error
      await new Promise((r) => setTimeout(r, 2_000))
    }
  }
}

async function startServiceOnce(
  configFile: string,
  options: { env?: NodeJS.ProcessEnv; readyTimeoutMs?: number } = {},
): Promise<ServiceProcess> {
  const port = await freePort()
  const child = spawn(process.execPath, ['bin/tracescore.js', 'run', '--config', configFile], {
    cwd: repoRoot,
    // The config file names the brokers (some tests use a private broker): a KAFKA_BROKERS from
    // the caller's environment would override it, so only an explicit one is passed on.
    env: { ...process.env, KAFKA_BROKERS: '', ...options.env, TRACESCORE_METRICS_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  const keep = (d: Buffer) => {
    out += d
    if (out.length > 2_000_000) out = out.slice(-1_000_000)
  }
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  )
  let ended = false
  void exited.then(() => {
    ended = true
  })
  const metricsUrl = `http://127.0.0.1:${port}`
  const service: ServiceProcess = {
    child,
    pid: child.pid!,
    metricsUrl,
    output: () => out,
    exited,
    peakRssMiB: () => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
        const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1])
        return kb / 1024
      } catch {
        return Number.NaN
      }
    },
    metric: async (name) => {
      try {
        const text = await (
          await fetch(`${metricsUrl}/metrics`, { signal: AbortSignal.timeout(5000) })
        ).text()
        let sum: number | undefined
        for (const line of text.split('\n')) {
          if (!line.startsWith(name) || (line[name.length] !== ' ' && line[name.length] !== '{')) continue
          sum = (sum ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1))
        }
        return sum
      } catch {
        return undefined
      }
    },
    kill9: async () => {
      if (ended) return
      child.kill('SIGKILL')
      await exited
    },
    stop: async (timeoutMs = 40_000) => {
      if (ended) return (await exited).code
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
      const { code } = await exited
      clearTimeout(timer)
      return code
    },
  }
  const deadline = Date.now() + (options.readyTimeoutMs ?? 90_000)
  for (;;) {
    if (ended) throw new Error(`tracescore run exited before it was ready:\n${out.slice(-4000)}`)
    try {
      const res = await fetch(`${metricsUrl}/readyz`, { signal: AbortSignal.timeout(1000) })
      if (res.ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await service.kill9()
      throw new Error(`tracescore run not ready in time:\n${out.slice(-4000)}`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  return service
}
