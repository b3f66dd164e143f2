import { spawn, spawnSync } from 'node:child_process'
import { resolve } from 'node:path'
import { Kafka, logLevel } from 'kafkajs'
import { packageRoot } from '../package-root.ts'

/** True when a Kafka client can list the topics at `brokers` (one quick attempt, no retries). */
export async function brokerAnswers(brokers: string[]): Promise<boolean> {
  const admin = new Kafka({
    clientId: 'tracescore-demo',
    brokers,
    logLevel: logLevel.NOTHING,
    retry: { retries: 0 },
  }).admin()
  try {
    await admin.connect()
    await admin.listTopics()
    return true
  } catch {
    return false
  } finally {
    await admin.disconnect().catch(() => {})
  }
}

/**
 * The port of a broker list the local launcher can serve: one address on 127.0.0.1 or
 * localhost. Undefined otherwise (a remote cluster is not ours to start).
 */
export function localBrokerPort(brokers: string[]): number | undefined {
  if (brokers.length !== 1) return undefined
  const match = /^(?:127\.0\.0\.1|localhost):(\d+)$/.exec(brokers[0]!.trim())
  return match ? Number(match[1]) : undefined
}

const script = (name: string) => resolve(packageRoot, 'scripts', name)

const shellQuoted = (word: string) =>
  /^[\w./=:-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`

/** The shell command that stops the broker the launcher started on `port`. */
export function stopCommand(port: number): string {
  return `KAFKA_PORT=${port} bash ${shellQuoted(script('kafka-stop.sh'))}`
}

// The launcher's port, and the Node running this for its readiness probe: an installed package
// has no Node of its own in node_modules/.bin.
const launcherEnv = (port: number) => ({
  ...process.env,
  KAFKA_PORT: String(port),
  KAFKA_NODE: process.execPath,
})

/**
 * Starts the local broker on `port` with scripts/kafka-start.sh, its log lines on stderr.
 * Resolves to 'started', or to 'reused' when another broker came up there meanwhile (the launcher
 * then waits for that one, which is not the demo's to stop); rejects when the launcher fails.
 */
export function startLocalBroker(port: number): Promise<'started' | 'reused'> {
  return new Promise((done, fail) => {
    const child = spawn('bash', [script('kafka-start.sh')], {
      env: launcherEnv(port),
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk
      process.stderr.write(chunk)
    })
    child.on('error', fail)
    child.on('close', (code) => {
      if (code !== 0) fail(new Error(`scripts/kafka-start.sh exited with ${code} (see its log above)`))
      else done(/reusing the broker|is still starting/.test(output) ? 'reused' : 'started')
    })
  })
}

/**
 * Stops the broker the launcher started on `port` and wipes its store (it only held the demo's
 * topics, deleted already). Synchronous, so it also runs from a signal handler. True when stopped.
 */
export function stopLocalBroker(port: number): boolean {
  const stopped = spawnSync('bash', [script('kafka-stop.sh')], {
    env: { ...launcherEnv(port), KAFKA_WIPE: '1' },
    stdio: ['ignore', 2, 2],
  })
  return stopped.status === 0
}
