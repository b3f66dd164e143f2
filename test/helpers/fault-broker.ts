/**
 * A private Kafka broker for fault tests that stop and restart it (scripts/kafka-start.sh and
 * kafka-stop.sh on their own port and state dir), so the shared broker on 9092 that other tests
 * use is never touched.
 */
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { repoRoot } from './cli.ts'

const run = promisify(execFile)

/** A broker on `port` with its state under test/.tmp. */
export function privateBroker(port: number) {
  const env = {
    ...process.env,
    KAFKA_PORT: String(port),
    KAFKA_DIR: `${repoRoot}test/.tmp/kafka-fault-${port}`,
    KAFKA_START_TIMEOUT: '120',
  }
  const script = (name: string, extra: NodeJS.ProcessEnv = {}) =>
    run('bash', [`scripts/${name}`], { cwd: repoRoot, env: { ...env, ...extra }, timeout: 180_000 })
  return {
    brokers: [`127.0.0.1:${port}`],
    /** Starts with an empty store. */
    start: () => script('kafka-start.sh'),
    /** Starts again on the data kept from before (topics, records, committed offsets). */
    restart: () => script('kafka-start.sh', { KAFKA_KEEP_DATA: '1' }),
    /** Controlled shutdown (SIGTERM), data kept. */
    stop: () => script('kafka-stop.sh'),
    /** Stops and deletes the data. */
    destroy: () => script('kafka-stop.sh', { KAFKA_WIPE: '1' }),
  }
}
