import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { scoreSpanId } from '../../src/sink/score-span-id.ts'
import { listFixtures } from '../fixtures/index.ts'
import { spawnTracescore, writeTempFile } from '../helpers/cli.ts'
import { startOtlpReceiver } from '../helpers/fault-otlp-receiver.ts'
import { createTopic, produce, testKafka, uniqueName } from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

// `tracescore run` from dist/ with the OTLP export on its worker thread: the worker module is
// found beside the built sink, every score the service wrote to stdout arrives as a score span,
// and the service stops (drains and ends the worker) with exit code 0.
describe('tracescore run with sinks.otlp.exportThread: worker', () => {
  it('exports every score from the worker thread and exits 0 when stopped', async () => {
    const receiver = await startOtlpReceiver()
    const topic = uniqueName('export_worker')
    await createTopic(testKafka(), topic, 1)
    const fixtures = listFixtures(['ai-sdk-7-genai'])
    await produce(
      testKafka(),
      topic,
      fixtures.map((f) => readFileSync(f.protoPath)),
    )
    const config = writeTempFile(
      `${topic}.config.ts`,
      `import { defineConfig } from 'tracescore'
import { answeredScorer } from '../../config/scorers/answered.ts'
export default defineConfig({
  kafka: { topic: '${topic}', groupId: '${topic}', fromBeginning: true },
  assembly: { settleMs: 200 },
  scorers: { answered: { scorer: answeredScorer } },
  sinks: { otlp: { endpoint: '${receiver.url}', exportThread: 'worker' }, stdout: true },
  metrics: { port: 0 },
})
`,
    )
    const service = spawnTracescore(['run', '--config', config])
    const stderr = () => `stderr: ${service.stderr().slice(-2000)}`
    const lines = () =>
      service
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { traceId: string; spanId: string; scorer: string })
    let code: number | null
    try {
      // Every fixture with an agent run is scored once; the stdout sink and the OTLP sink get the same scores.
      await until(
        () => lines().length > 0 && receiver.scores.size >= lines().length,
        90_000,
        () => `scores on stdout ${lines().length}, at the receiver ${receiver.scores.size}; ${stderr()}`,
      )
    } finally {
      code = await service.stop()
      await receiver.close()
    }
    const expected = lines().map((l) => scoreSpanId(l.traceId, l.spanId, l.scorer))
    expect(expected.length).toBeGreaterThan(1)
    expect([...receiver.scores.keys()].sort()).toEqual([...new Set(expected)].sort())
    expect(code).toBe(0)
    expect(service.stderr()).not.toMatch(/export worker died|ERR_MODULE_NOT_FOUND/)
  })
})
