/**
 * A real Prometheus server (Debian's `prometheus` package, installed by
 * scripts/prometheus-install.sh) for e2e tests: started on a free port with a throw-away TSDB,
 * queried through its HTTP API, stopped at the end.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort, repoRoot } from './cli.ts'

const execFileP = promisify(execFile)

/** One alert as `/api/v1/alerts` reports it. */
export interface PrometheusAlert {
  labels: Record<string, string>
  annotations: Record<string, string>
  state: 'pending' | 'firing'
  activeAt: string
  value: string
}

/** One rule as `/api/v1/rules` reports it. */
export interface PrometheusRule {
  name: string
  type: 'recording' | 'alerting'
  health: 'ok' | 'err' | 'unknown'
  lastError?: string
}

/** A sample of an instant query's vector result. */
export interface PrometheusSample {
  metric: Record<string, string>
  value: [number, string]
}

/** A running Prometheus. */
export interface PrometheusServer {
  readonly url: string
  readonly version: string
  /** An instant query; rejects with Prometheus' error for an invalid expression. */
  query(expr: string): Promise<PrometheusSample[]>
  alerts(): Promise<PrometheusAlert[]>
  rules(): Promise<PrometheusRule[]>
  /** Prometheus' own output so far. */
  output(): string
  stop(): Promise<void>
}

/** Files of one server: its config (YAML text) and rule files (name → YAML text). */
export interface PrometheusFiles {
  config: string
  rules: Record<string, string>
}

/**
 * Runs scripts/prometheus-install.sh (a no-op when promtool and prometheus are installed):
 * resolves to undefined when they are there, or to the script's message when they cannot be
 * installed on this machine (no apt-get); rejects when an install failed.
 */
export async function ensurePrometheus(): Promise<string | undefined> {
  const result = await execFileP('bash', [join(repoRoot, 'scripts', 'prometheus-install.sh')]).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code: number; stderr: string }) => error,
  )
  if (result.code === 3) return result.stderr.trim()
  if (result.code !== 0) throw new Error(`scripts/prometheus-install.sh failed:\n${result.stderr}`)
  return undefined
}

/** Starts Prometheus on 127.0.0.1 and waits until it is ready. */
export async function startPrometheus(name: string, files: PrometheusFiles): Promise<PrometheusServer> {
  const dir = join(repoRoot, 'test', '.tmp', `prometheus-${name}`)
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(join(dir, 'data'), { recursive: true })
  writeFileSync(join(dir, 'prometheus.yml'), files.config)
  for (const [file, text] of Object.entries(files.rules)) writeFileSync(join(dir, file), text)
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child: ChildProcess = spawn(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let out = ''
  child.stdout!.on('data', (d) => {
    out += d
  })
  child.stderr!.on('data', (d) => {
    out += d
  })
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  let ended = false
  void exited.then(() => {
    ended = true
  })
  const api = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) })
    const body = (await res.json()) as { status: string; data: T; error?: string }
    if (body.status !== 'success') throw new Error(`Prometheus ${path}: ${body.error}`)
    return body.data
  }
  for (;;) {
    if (ended) throw new Error(`prometheus exited before it was ready:\n${out.slice(-4000)}`)
    const ready = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.ok,
      () => false,
    )
    if (ready) break
    await new Promise((r) => setTimeout(r, 200))
  }
  const build = await api<{ version: string }>('/api/v1/status/buildinfo')
  return {
    url,
    version: build.version,
    query: async (expr) =>
      (await api<{ result: PrometheusSample[] }>(`/api/v1/query?query=${encodeURIComponent(expr)}`)).result,
    alerts: async () => (await api<{ alerts: PrometheusAlert[] }>('/api/v1/alerts')).alerts,
    rules: async () =>
      (await api<{ groups: { rules: PrometheusRule[] }[] }>('/api/v1/rules')).groups.flatMap((g) => g.rules),
    output: () => out,
    stop: async () => {
      if (!ended) child.kill('SIGTERM')
      await exited
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
