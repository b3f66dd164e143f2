import { readFileSync } from 'node:fs'
import { Kafka, logLevel } from 'kafkajs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  freePort,
  type ServiceProcess,
  spawnTracescore,
  startService,
  writeTempFile,
} from '../helpers/cli.ts'
import { makeRuns } from '../helpers/fault-traffic.ts'
import { createTopic, produce, readTopic, runScript, testBrokers, uniqueName } from '../helpers/kafka.ts'

// tracescore against Kafka as production clusters run it: TLS with a private CA and SCRAM-SHA-512
// users, on the SASL_SSL listener scripts/kafka-start.sh adds with KAFKA_SASL_SSL=1 (its CA,
// users and random passwords are in the client.json the script names). The service consumes,
// dead-letters and writes the score topic through that listener only; a wrong password or an
// untrusted certificate is an error naming the setting, /readyz stays 503, and no password
// shows up in any log.

/** What kafka-start.sh wrote for clients of the SASL_SSL listener. */
interface SaslSslClient {
  brokers: string[]
  ca: string
  mechanism: 'scram-sha-512'
  users: { tracescore: string; collector: string }
}

let client: SaslSslClient
let secure: Kafka
let brokerLog: string

beforeAll(async () => {
  const port = testBrokers()[0]!.split(':')[1]!
  const out = await runScript('kafka-start.sh', { KAFKA_PORT: port, KAFKA_SASL_SSL: '1' })
  const file = /CA and users: (\S+)/.exec(out)?.[1]
  if (!file) throw new Error(`kafka-start.sh did not report a SASL_SSL listener:\n${out}`)
  client = JSON.parse(readFileSync(file, 'utf8'))
  brokerLog = `${/log: (\S+server\.log)/.exec(out)![1]}`
  // The test's own producer and reader: the `collector` user, as the Collector's exporter would be.
  secure = new Kafka({
    clientId: 'sasl-ssl-test',
    brokers: client.brokers,
    ssl: { ca: [readFileSync(client.ca, 'utf8')] },
    sasl: { mechanism: 'scram-sha-512', username: 'collector', password: client.users.collector },
    logLevel: logLevel.NOTHING,
  })
})

/** A config module for the SASL_SSL listener; `ssl`/`password` vary for the failure cases. */
function saslConfig(name: string, o: { ssl: string; password: string; topic: string }): string {
  return writeTempFile(
    `${name}.config.ts`,
    `import { defineConfig } from 'tracescore'
import { answeredScorer } from '../../config/scorers/answered.ts'

export default defineConfig({
  kafka: {
    brokers: ${JSON.stringify(client.brokers)},
    topic: '${o.topic}',
    groupId: '${o.topic}',
    fromBeginning: true,
    deadLetterTopic: '${o.topic}_dlq',
    ssl: ${o.ssl},
    sasl: { mechanism: 'scram-sha-512', username: 'tracescore', password: '${o.password}' },
  },
  assembly: { settleMs: 200 },
  scorers: { answered: { scorer: answeredScorer } },
  sinks: { otlp: false, kafka: { topic: '${o.topic}_scores' } },
  log: { level: 'info' },
})
`,
  )
}

/** Every secret of the test broker and the one given: none may appear in `text`. */
function secretsIn(text: string, ...extra: string[]): string[] {
  return [client.users.tracescore, client.users.collector, ...extra].filter((s) => text.includes(s))
}

describe('tracescore through a SASL_SSL listener (TLS + SCRAM-SHA-512)', () => {
  const topic = uniqueName('sasl_ssl')
  const runs = makeRuns(12, 7)
  let service: ServiceProcess | undefined
  afterAll(() => service?.stop())

  it('consumes, dead-letters and writes the score topic through it', async () => {
    for (const t of [topic, `${topic}_dlq`, `${topic}_scores`]) await createTopic(secure, t, 2)
    const garbage = [Buffer.from([0xff, 0xff, 0xff, 0xff, 0x01]), Buffer.from('{"resourceSpans": 5}')]
    await produce(secure, topic, [
      ...runs.map((r) => ({ key: r.traceId, value: r.value })),
      ...garbage.map((value, i) => ({ key: `garbage-${i}`, value })),
    ])
    service = await startService(
      saslConfig(topic, {
        ssl: `{ ca: ${JSON.stringify(client.ca)} }`,
        password: client.users.tracescore,
        topic,
      }),
    )
    const scores = await readTopic(secure, `${topic}_scores`, runs.length, 90_000)
    const scored = scores.map(
      (s) => JSON.parse(s.value!.toString()) as { traceId: string; scorerId: string; score: number },
    )
    expect(new Set(scored.map((s) => s.traceId))).toEqual(new Set(runs.map((r) => r.traceId)))
    expect(scored.every((s) => s.scorerId === 'answered' && typeof s.score === 'number')).toBe(true)
    const dead = await readTopic(secure, `${topic}_dlq`, garbage.length, 60_000)
    expect(dead.map((d) => d.key).sort()).toEqual(['garbage-0', 'garbage-1'])
    expect(dead.every((d) => d.headers['tracescore-error'])).toBe(true)
    // Consumer lag is read through the same listener with an admin client.
    expect(await service.metric('tracescore_dead_letters_total')).toBe(garbage.length)
    let lag: number | undefined
    for (let i = 0; i < 100 && lag !== 0; i++) {
      lag = await service.metric('tracescore_consumer_lag')
      if (lag !== 0) await new Promise((r) => setTimeout(r, 300))
    }
    expect(lag).toBe(0)
    expect(await service.stop()).toBe(0)
    expect(secretsIn(service.output())).toEqual([])
    service = undefined
  })

  it.each([
    {
      name: 'a wrong password',
      ssl: () => `{ ca: ${JSON.stringify(client.ca)} }`,
      expected: /kafka\.sasl: the broker rejected the username or password/,
    },
    {
      name: 'an untrusted certificate (no kafka.ssl.ca)',
      ssl: () => 'true',
      expected: /kafka\.ssl: the broker's certificate is not trusted; set kafka\.ssl\.ca/,
    },
  ])(
    'with $name: an error naming the setting, not ready, no secret in the logs',
    async ({ ssl, expected }) => {
      const wrong = `wrong-${uniqueName('pw')}`
      const name = uniqueName('sasl_bad')
      const config = saslConfig(name, {
        ssl: ssl(),
        password: expected.source.includes('sasl') ? wrong : client.users.tracescore,
        topic: name,
      })
      const port = await freePort()
      const service = spawnTracescore(['run', '--config', config], {
        env: { KAFKA_BROKERS: '', TRACESCORE_METRICS_PORT: String(port) },
      })
      try {
        for (let i = 0; i < 300 && !expected.test(service.output()); i++)
          await new Promise((r) => setTimeout(r, 200))
        const output = service.output()
        expect(output).toMatch(expected)
        const readyz = await fetch(`http://127.0.0.1:${port}/readyz`)
        expect(readyz.status).toBe(503)
        const line = output.split('\n').find((l) => expected.test(l))!
        expect(JSON.parse(line)).toMatchObject({ level: 40, service: 'tracescore' })
      } finally {
        await service.stop()
      }
      expect(secretsIn(service.output(), wrong)).toEqual([])
    },
  )

  it('keeps the passwords out of the broker log too', () => {
    expect(secretsIn(readFileSync(brokerLog, 'utf8'))).toEqual([])
  })
})
