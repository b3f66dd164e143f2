import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { brokerAnswers } from '../../src/demo/local-broker.ts'
import { loadTrafficSamples } from '../../src/demo/traffic.ts'
import { repoRoot, runCli } from '../helpers/cli.ts'
import { testBrokers } from '../helpers/kafka.ts'

const execFileP = promisify(execFile)

/** Checks the demo's summary: the table of the three example scorers, and every trace scored. */
function expectSummary(stdout: string, runs: number) {
  const header = stdout.split('\n').find((l) => l.startsWith('agent '))!
  expect(header.split(/\s+/)).toEqual(['agent', 'scorer', 'scored', 'mean', 'min', 'max', 'failed'])
  const rows = stdout.split('\n').filter((l) => /\s(answered|helpfulness|tool-success)\s/.test(l))
  expect(new Set(rows.map((r) => r.trim().split(/\s+/)[1]))).toEqual(
    new Set(['answered', 'helpfulness', 'tool-success']),
  )
  expect(stdout).toMatch(new RegExp(`\\n(\\d+) scores for ${runs} traces; 0 failed scorings\\.`))
}

// The README's main command, as a user runs it, on the real local broker of the integration tier.
describe('tracescore demo', () => {
  it('produces recorded agent traffic, scores every trace and prints the summary', async () => {
    const result = await runCli(['demo', '--runs', '10'], { timeoutMs: 240_000 })
    expect(result.stderr).not.toMatch(/Error|Warning/)
    expect(result.code).toBe(0)
    expect(result.stdout).toContain('scripted LLM judge (not a real model)')
    expect(result.stdout).toMatch(/produced 10 OTLP records \(10 traces/)
    expectSummary(result.stdout, 10)
    // The tier's broker was running: used, and left running for the other tests.
    expect(result.stdout).toContain(
      `Kafka broker at ${testBrokers().join(',')} (already running: used and left running)`,
    )
    expect(await brokerAnswers(testBrokers())).toBe(true)
  })
})

// What `npm publish` would ship, installed into an empty folder, with the demo starting (and
// stopping) a broker of its own on a private port, so the tier's broker is not touched.
describe('tracescore demo from the packed package', () => {
  const port = Number(process.env.DEMO_BROKER_PORT ?? 29492)
  const at = `127.0.0.1:${port}`
  let work: string
  let app: string
  let env: NodeJS.ProcessEnv
  const run = (file: string, args: string[], cwd = app) =>
    execFileP(file, args, { cwd, env, timeout: 240_000, maxBuffer: 16 * 2 ** 20 })
  let packed: { filename: string; size: number; files: { path: string }[] }

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'tracescore-pack-'))
    app = join(work, 'app')
    // The Node running the tests first on PATH (for npm, npx and the package's bin); the broker's
    // state in the temporary folder instead of ~/.local/state.
    env = {
      ...process.env,
      PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH}`,
      XDG_STATE_HOME: join(work, 'state'),
      KAFKA_BROKERS: at,
      KAFKA_PORT: String(port),
      PHOENIX_URL: 'http://127.0.0.1:9', // nothing listens there: scores are only printed
    }
    // npm pack runs `prepare` (the build) first, as npm publish does.
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], repoRoot)
    packed = JSON.parse(stdout)[0]
    mkdirSync(app)
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'demo-app', private: true }))
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, packed.filename)])
  }, 240_000)

  afterAll(async () => {
    // Only if a test failed half-way: the broker started on the private port.
    await run('bash', [join(app, 'node_modules/tracescore/scripts/kafka-stop.sh')]).catch(() => {})
    rmSync(work, { recursive: true, force: true })
  }, 60_000)

  it('ships the demo (built example scorers, its traffic, the broker launcher) and no test data', () => {
    const paths = packed.files.map((f) => f.path)
    for (const needed of [
      'bin/tracescore.js',
      'dist/examples/scorers/helpfulness.js',
      'dist/examples/tracescore.config.js',
      'dist/demo-data/mastra/tool-error.pb',
      'scripts/kafka-start.sh',
      'scripts/kafka-stop.sh',
      'scripts/lib/kafka-probe.mjs',
      'kafka/pom.xml',
      'kafka/server.properties.template',
    ]) {
      expect(paths).toContain(needed)
    }
    expect(paths.filter((p) => /^(test|kafka\/target|\.kafka)\//.test(p))).toEqual([])
  })

  it('starts a broker, scores every trace and stops the broker it started', async () => {
    expect(await brokerAnswers([at]), `port ${port} must be free (DEMO_BROKER_PORT)`).toBe(false)
    const { stdout, stderr } = await run('npx', ['--no', 'tracescore', 'demo', '--runs', '4'])
    expect(stderr).not.toMatch(/Error|Warning/)
    expect(stdout).toContain(`no Kafka broker at ${at}: starting the local one`)
    expect(stdout).toContain('the demo stops it at the end (--keep-broker keeps it)')
    // Every scenario the build copied into the package's demo data (scripts/demo-data.ts).
    const scenarios = loadTrafficSamples(join(repoRoot, 'dist/demo-data')).length
    expect(scenarios).toBeGreaterThan(60)
    expect(stdout).toContain(`produced 4 OTLP records (4 traces, ${scenarios} recorded scenarios)`)
    expectSummary(stdout, 4)
    expect(stdout).toContain(`Stopped the Kafka broker the demo started on ${at}.`)
    // Its state lived in XDG_STATE_HOME, not in node_modules.
    expect(stderr).toContain(join(work, 'state', 'tracescore', 'kafka', `port-${port}`))
    expect(await brokerAnswers([at])).toBe(false)
  })

  it('with --keep-broker leaves the broker running and prints the command that stops it', async () => {
    const { stdout } = await run('npx', ['--no', 'tracescore', 'demo', '--runs', '2', '--keep-broker'])
    expectSummary(stdout, 2)
    expect(await brokerAnswers([at])).toBe(true)
    const stop = stdout.match(/keeps running\. Stop it with:\n {2}(.+)\n/)?.[1]
    expect(stop).toMatch(
      new RegExp(`^KAFKA_PORT=${port} bash .*/node_modules/tracescore/scripts/kafka-stop\\.sh$`),
    )
    await run('bash', ['-c', stop!])
    expect(await brokerAnswers([at])).toBe(false)
  })
})
