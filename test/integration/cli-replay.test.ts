import { readFileSync } from 'node:fs'
import { Kafka, logLevel } from 'kafkajs'
import { describe, expect, it } from 'vitest'
import { listFixtures } from '../fixtures/index.ts'
import { runCli, writeTempFile } from '../helpers/cli.ts'

const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',')

describe('tracescore replay', () => {
  it('re-scores exactly the requested offset range into the sinks', async () => {
    const topic = `replay_${Date.now().toString(36)}`
    const kafka = new Kafka({ clientId: 'replay-test', brokers, logLevel: logLevel.NOTHING })
    const admin = kafka.admin()
    await admin.connect()
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true })
    const fixtures = listFixtures(['ai-sdk-7-genai']).slice(0, 6)
    const producer = kafka.producer()
    await producer.connect()
    await producer.send({ topic, messages: fixtures.map((f) => ({ value: readFileSync(f.protoPath) })) })
    await producer.disconnect()
    await admin.disconnect()

    const config = writeTempFile(
      `replay-${topic}.config.ts`,
      `import { defineConfig } from 'tracescore'
import { answeredScorer } from '../../config/scorers/answered.ts'
export default defineConfig({
  kafka: { topic: '${topic}' },
  scorers: { answered: { scorer: answeredScorer } },
  sinks: { otlp: false, stdout: true },
  log: { level: 'warn' },
})
`,
    )
    const result = await runCli(['replay', '--config', config, '--from', '2', '--to', '5'], {
      timeoutMs: 90_000,
    })
    expect(result.code).toBe(0)
    expect(result.stderr).toContain('replay: 3/3 records')
    const traces = new Set(
      result.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).traceId),
    )
    const expected = new Set(
      fixtures
        .slice(2, 5)
        .map(
          (f) => JSON.parse(readFileSync(f.jsonPath, 'utf8')).resourceSpans[0].scopeSpans[0].spans[0].traceId,
        ),
    )
    expect(traces).toEqual(expected)
  })

  it('ends with a message and exit 1 when the range cannot be read, never a hang', async () => {
    const topic = `replay_topic_that_does_not_exist_${Date.now().toString(36)}`
    const config = writeTempFile(
      'replay-missing-topic.config.ts',
      `import { defineConfig } from 'tracescore'
export default defineConfig({
  kafka: { topic: '${topic}' },
  sinks: { otlp: false, stdout: true },
  log: { level: 'warn' },
})
`,
    )
    const result = await runCli(['replay', '--config', config, '--from', '0'], { timeoutMs: 90_000 })
    expect(result.code).toBe(1)
    // Named at once, not after kafkajs's metadata retries as "does not host this topic-partition".
    expect(result.stderr).toContain(`replay failed: topic ${topic} does not exist: nothing to replay`)
  })

  it('refuses a bound that is neither an offset nor a time', async () => {
    const result = await runCli(['replay', '--from', 'yesterday-ish'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('expected an offset or a time')
  })
})
