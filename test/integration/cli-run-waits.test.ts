import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { listFixtures } from '../fixtures/index.ts'
import { repoRoot, writeTempFile } from '../helpers/cli.ts'
import { createTopic, produce, testKafka, uniqueName } from '../helpers/kafka.ts'

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
    const child = spawn(process.execPath, ['bin/tracescore.js', 'run', '--config', config], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => {
      stdout += d
    })
    child.stderr.on('data', (d) => {
      stderr += d
    })
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    const until = async (what: string, ok: () => boolean) => {
      const deadline = Date.now() + 60_000
      while (!ok()) {
        if (Date.now() > deadline)
          throw new Error(`timed out waiting for ${what}; stderr: ${stderr.slice(-2000)}`)
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    try {
      await until('the waiting message', () => stderr.includes(`topic ${topic} does not exist yet`))
      await createTopic(testKafka(), topic, 1)
      const fixture = listFixtures(['ai-sdk-7-genai']).find((f) => f.scenario === 'single-turn')!
      await produce(testKafka(), topic, [readFileSync(fixture.protoPath)])
      await until('a score line', () => stdout.includes('"scorer":"answered"'))
      expect(JSON.parse(stdout.trim().split('\n')[0]!)).toMatchObject({ scorer: 'answered', score: 1 })
    } finally {
      child.kill('SIGTERM')
    }
    expect(await exited).toBe(0)
  })

  it('exits 0 when stopped while still waiting', async () => {
    const topic = uniqueName('never_topic')
    const config = writeTempFile(
      `${topic}.config.ts`,
      `export default { kafka: { topic: '${topic}' }, sinks: { otlp: false }, metrics: { port: 0 } }\n`,
    )
    const child = spawn(process.execPath, ['bin/tracescore.js', 'run', '--config', config], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    child.stderr.on('data', (d) => {
      stderr += d
    })
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
    const deadline = Date.now() + 30_000
    while (!stderr.includes('does not exist yet') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100))
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
    expect(stderr).toContain('shutting down')
  })
})
