/**
 * The `tracescore` command as a user runs it (`node bin/tracescore.js …`, the built dist/), for
 * every test that starts it: `runCli` runs one command to its end, `spawnTracescore` starts one in
 * the background (its output, its exit, SIGTERM/SIGKILL), `startService` starts `tracescore run`
 * and waits until /readyz answers 200. Config files go under test/.tmp (`writeTempFile`) so that
 * `import … from 'tracescore'` resolves to the package.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

/** The repository root. */
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url))

/** Writes a file under test/.tmp (inside the package, so `import 'tracescore'` resolves) and returns its path. */
export function writeTempFile(name: string, content: string | Uint8Array): string {
  const dir = `${repoRoot}test/.tmp`
  mkdirSync(dir, { recursive: true })
  const path = `${dir}/${name}`
  writeFileSync(path, content)
  return path
}

let distChecked: string | undefined

/**
 * Why dist/ cannot be what these tests run, or '' when it is current: a test run on its own
 * (`npx vitest run --project fault …`) does not build it, and a dist/ older than src/ runs old code
 * silently (two fault-test failures under load were a dist/ that predated the fixes they tested).
 * Missing files are left to the start's own retry (a build under way).
 */
function staleDist(): string {
  const newest = (dir: string, keep: (name: string) => boolean) => {
    let at = 0
    for (const name of readdirSync(dir, { recursive: true }) as string[])
      if (keep(name)) at = Math.max(at, statSync(`${dir}/${name}`).mtimeMs)
    return at
  }
  if (!existsSync(`${repoRoot}dist`)) return ''
  // What tsconfig.build.json compiles: no tests, no testing/ helpers.
  const compiled = (name: string) =>
    name.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(name) && !/(^|\/)testing\//.test(name)
  const source = newest(`${repoRoot}src`, compiled)
  const built = newest(`${repoRoot}dist`, (name) => name.endsWith('.js'))
  return source > built ? 'dist/ is older than src/: run `npm run build` before these tests' : ''
}

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

/** A `tracescore` process running in the background. */
export interface TracescoreProcess {
  readonly child: ChildProcess
  /** stdout so far. */
  stdout(): string
  /** stderr so far (the JSON log lines). */
  stderr(): string
  /** stdout + stderr so far, in arrival order (the last 1–2 MB of a long run). */
  output(): string
  /** Resolves with the exit code (or signal) when the process ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  kill9(): Promise<void>
  /** SIGTERM, then SIGKILL after `timeoutMs`; resolves with the exit code. */
  stop(timeoutMs?: number): Promise<number | null>
}

/**
 * Starts the built `tracescore` command with the Node that runs the tests (Node 24 from
 * node_modules), in the repository root (or `cwd`, a folder with the package's `bin/`).
 */
export function spawnTracescore(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): TracescoreProcess {
  distChecked ??= staleDist()
  if (distChecked) throw new Error(distChecked)
  const child = spawn(process.execPath, ['bin/tracescore.js', ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  let output = ''
  const keep = (d: Buffer) => {
    output += d
    if (output.length > 2_000_000) output = output.slice(-1_000_000)
  }
  child.stdout!.on('data', (d: Buffer) => {
    if (stdout.length < 2_000_000) stdout += d
    keep(d)
  })
  child.stderr!.on('data', (d: Buffer) => {
    if (stderr.length < 2_000_000) stderr += d
    keep(d)
  })
  // 'close' rather than 'exit': the output is complete when it fires.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal }))
  })
  let ended = false
  const mark = () => {
    ended = true
  }
  void exited.then(mark, mark)
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    output: () => output,
    exited,
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
}

/** Output and exit code of one `tracescore` command run to its end. */
export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs one `tracescore` command to its end; kills it after `timeoutMs`. */
export async function runCli(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliResult> {
  const cli = spawnTracescore(args, options)
  const timer = setTimeout(() => cli.child.kill('SIGKILL'), options.timeoutMs ?? 60_000)
  try {
    const { code } = await cli.exited
    return { code, stdout: cli.stdout(), stderr: cli.stderr() }
  } finally {
    clearTimeout(timer)
  }
}

/** A running `tracescore run` process that answered /readyz. */
export interface ServiceProcess extends TracescoreProcess {
  readonly pid: number
  /** `http://127.0.0.1:<port>` of /metrics, /healthz, /readyz. */
  readonly metricsUrl: string
  /** Peak resident set size so far, in MiB (VmHWM), or NaN once exited. */
  peakRssMiB(): number
  /** A Prometheus sample by metric name (sum over label sets), or undefined. */
  metric(name: string): Promise<number | undefined>
}

/**
 * Spawns `tracescore run --config FILE` and waits until /readyz answers 200. In a checkout shared
 * with other builds, dist/ can be missing for a moment while it is rebuilt: that start is retried.
 */
export async function startService(
  configFile: string,
  options: { env?: NodeJS.ProcessEnv; readyTimeoutMs?: number; cwd?: string } = {},
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
  options: { env?: NodeJS.ProcessEnv; readyTimeoutMs?: number; cwd?: string } = {},
): Promise<ServiceProcess> {
  const port = await freePort()
  const process_ = spawnTracescore(['run', '--config', configFile], {
    // The config file names the brokers (some tests use a private broker): a KAFKA_BROKERS from
    // the caller's environment would override it, so only an explicit one is passed on.
    env: { KAFKA_BROKERS: '', ...options.env, TRACESCORE_METRICS_PORT: String(port) },
    cwd: options.cwd,
  })
  let ended = false
  void process_.exited.then(() => {
    ended = true
  })
  const metricsUrl = `http://127.0.0.1:${port}`
  const service: ServiceProcess = {
    ...process_,
    pid: process_.child.pid!,
    metricsUrl,
    peakRssMiB: () => {
      try {
        const status = readFileSync(`/proc/${process_.child.pid}/status`, 'utf8')
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
  }
  const deadline = Date.now() + (options.readyTimeoutMs ?? 90_000)
  for (;;) {
    if (ended) throw new Error(`tracescore run exited before it was ready:\n${service.output().slice(-4000)}`)
    try {
      const res = await fetch(`${metricsUrl}/readyz`, { signal: AbortSignal.timeout(1000) })
      if (res.ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await service.kill9()
      throw new Error(`tracescore run not ready in time:\n${service.output().slice(-4000)}`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  return service
}
