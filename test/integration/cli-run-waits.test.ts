import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { listFixtures } from '../fixtures/index.ts'
import { spawnTracescore, writeTempFile } from '../helpers/cli.ts'
import { createTopic, produce, testKafka, uniqueName } from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

// A service may start before the Collector created its topic: it waits, says so, and consumes
// once the topic appears, instead of crashing.
describe('tracescore run before its topic exists', () => {
  it('waits for the topic, then scores what arrives', async () => {
    const topic = uniqueName('late_topic')
    const config = writeTempFile(
      `${topic}.config.ts`,
      `import { defineConfig } from 'tracescore'
import { answeredScorer } from '../../config/scorers/answered.ts'
export default defineConfig({
  kafka: { topic: '${topic}', groupId: '${topic}', fromBeginning: true },
  assembly: { settleMs: 200 },
  scorers: { answered: { scorer: answeredScorer } },
  sinks: { otlp: false, stdout: true },
  metrics: { port: 0 },
})
`,
    )
    const service = spawnTracescore(['run', '--config', config])
    const stderr = () => `stderr: ${service.stderr().slice(-2000)}`
    let code: number | null
    try {
      await until(
        () => service.stderr().includes(`topic ${topic} does not exist yet`),
        60_000,
        () => `the waiting message; ${stderr()}`,
      )
      await createTopic(testKafka(), topic, 1)
      const fixture = listFixtures(['ai-sdk-7-genai']).find((f) => f.scenario === 'single-turn')!
      await produce(testKafka(), topic, [readFileSync(fixture.protoPath)])
      await until(
        () => service.stdout().includes('"scorer":"answered"'),
        60_000,
        () => `a score line; ${stderr()}`,
      )
      expect(JSON.parse(service.stdout().trim().split('\n')[0]!)).toMatchObject({
        scorer: 'answered',
        score: 1,
      })
    } finally {
      code = await service.stop()
    }
    expect(code).toBe(0)
  })

  it('exits 0 when stopped while still waiting', async () => {
    const topic = uniqueName('never_topic')
    const config = writeTempFile(
      `${topic}.config.ts`,
      `export default { kafka: { topic: '${topic}' }, sinks: { otlp: false }, metrics: { port: 0 } }\n`,
    )
    const service = spawnTracescore(['run', '--config', config])
    // Stopped while waiting, or after 30 s at the latest: either way it must exit 0.
    await until(
      () => service.stderr().includes('does not exist yet'),
      30_000,
      () => 'the waiting message',
    ).catch(() => {})
    expect(await service.stop()).toBe(0)
    expect(service.stderr()).toContain('shutting down')
  })
})
