/**
 * The OpenTelemetry Collector distribution of tools/otelcol (core v0.165.0, contrib v0.165.1),
 * built from Go modules and cached by scripts/otelcol-build.sh, run as a child of the test.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { connect } from 'node:net'
import { promisify } from 'node:util'
import { repoRoot, writeTempFile } from './cli.ts'

const execFileP = promisify(execFile)

/** The path of the cached Collector binary; builds it first when the cache has none (minutes). */
export async function otelcolBinary(): Promise<string> {
  const { stdout } = await execFileP('bash', [`${repoRoot}scripts/otelcol-build.sh`], {
    cwd: repoRoot,
    timeout: 1_800_000,
  })
  return stdout.trim().split('\n').at(-1)!
}

/**
 * Builds the Collector when the cache has none (minutes): resolves to undefined when it is there,
 * or to the build script's message when it cannot be built on this machine (no Go: exit 3).
 */
export async function otelcolMissing(): Promise<string | undefined> {
  const result = await otelcolBinary().then(
    () => ({ code: 0, stderr: '' }),
    (error: { code?: number; stderr?: string }) => error,
  )
  if (result.code === 3) return (result.stderr ?? '').trim()
  if (result.code !== 0) throw new Error(`scripts/otelcol-build.sh failed:\n${result.stderr}`)
  return undefined
}

/** A running Collector. */
export interface Collector {
  readonly child: ChildProcess
  /** Its log (stderr) so far. */
  output(): string
  /** SIGTERM (the Collector flushes its exporters), then SIGKILL after 20 s. */
  stop(): Promise<void>
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.end()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })

/**
 * Starts the Collector with a YAML config (written under test/.tmp as `<name>.otelcol.yaml`) and
 * waits until every port in `ports` (its receivers) accepts connections; `args` are more
 * command-line arguments (e.g. `--feature-gates=…`).
 */
export async function startCollector(
  name: string,
  config: string,
  ports: number[],
  args: string[] = [],
): Promise<Collector> {
  const bin = await otelcolBinary()
  const file = writeTempFile(`${name}.otelcol.yaml`, config)
  const child = spawn(bin, ['--config', file, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  child.stderr!.on('data', (d) => {
    log = (log + d).slice(-1_000_000)
  })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  let ended = false
  void exited.then(() => {
    ended = true
  })
  const collector: Collector = {
    child,
    output: () => log,
    stop: async () => {
      if (ended) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
      await exited
      clearTimeout(timer)
    },
  }
  const deadline = Date.now() + 60_000
  for (;;) {
    if (ended) throw new Error(`the Collector exited at start:\n${log.slice(-4000)}`)
    if ((await Promise.all(ports.map(accepts))).every(Boolean)) return collector
    if (Date.now() > deadline) {
      await collector.stop()
      throw new Error(`the Collector's receivers did not open in time:\n${log.slice(-4000)}`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
}
