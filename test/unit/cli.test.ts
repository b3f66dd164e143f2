import { describe, expect, it } from 'vitest'
import { listFixtures } from '../fixtures/index.ts'
import { runCli, writeTempFile } from '../helpers/cli.ts'

// The built CLI as a process (bin/tracescore.js → dist/, built by `npm ci` / scripts/test-all.sh).
describe('tracescore score', () => {
  it('scores OTLP protobuf and JSON files and prints one JSON line per score', async () => {
    const fixtures = listFixtures().filter((f) => f.producer === 'ai-sdk-7-genai')
    const multi = fixtures.find((f) => f.scenario === 'multi-tool')!
    const failing = fixtures.find((f) => f.scenario === 'tool-error')!
    const result = await runCli(['score', multi.protoPath, failing.jsonPath])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines.length).toBeGreaterThanOrEqual(4)
    for (const line of lines) {
      expect(Object.keys(line).sort()).toEqual([
        'agentName',
        'reason',
        'score',
        'scorer',
        'spanId',
        'traceId',
      ])
      expect(line.traceId).toMatch(/^[0-9a-f]{32}$/)
      expect(line.spanId).toMatch(/^[0-9a-f]{16}$/)
    }
    const toolSuccess = lines.filter((l) => l.scorer === 'tool-success').map((l) => l.score)
    expect(toolSuccess.sort()).toEqual([0, 1])
  })

  it('reads the Collector file exporter JSON lines', async () => {
    const [a, b] = listFixtures().filter((f) => f.producer === 'ai-sdk-7-genai')
    const { readFileSync } = await import('node:fs')
    const jsonl = [a!, b!].map((f) => JSON.stringify(JSON.parse(readFileSync(f.jsonPath, 'utf8')))).join('\n')
    const file = writeTempFile('collector.jsonl', `${jsonl}\n`)
    const result = await runCli(['score', file])
    expect(result.code).toBe(0)
    const traces = new Set(
      result.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).traceId),
    )
    expect(traces.size).toBe(2)
  })

  it('reports an undecodable file by name and exits 1', async () => {
    const file = writeTempFile('garbage.pb', '\u0008\u00ff\u00ff\u00ff')
    const result = await runCli(['score', file])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('garbage.pb')
  })
})

describe('configuration errors stop the CLI with exit code 2 and name the key', () => {
  const scorer = `{ id: 's', run: async () => ({ score: 1 }) }`
  const table: [string, string, NodeJS.ProcessEnv, string][] = [
    [
      'a broker without a port',
      `{ kafka: { brokers: ['localhost'] } }`,
      {},
      'kafka.brokers.0: expected host:port',
    ],
    ['an unknown encoding', `{ kafka: { encoding: 'avro' } }`, {}, 'kafka.encoding'],
    [
      'a sampling rate above 1',
      `{ scorers: { s: { scorer: ${scorer}, sampling: { type: 'ratio', rate: 1.5 } } } }`,
      {},
      'scorers.s.sampling.rate',
    ],
    ['a scorer without run()', `{ scorers: { s: { scorer: { id: 's' } } } }`, {}, 'scorers.s.scorer'],
    ['a misspelt key', `{ assembly: { settleMS: 10 } }`, {}, 'unknown key assembly.settleMS'],
    [
      'a bad value from the environment',
      `{}`,
      { TRACESCORE_KAFKA_ENCODING: 'xml' },
      '(from TRACESCORE_KAFKA_ENCODING)',
    ],
    ['a non-object export', `42`, {}, 'expected an object'],
  ]
  it.each(table)('%s', async (_label, body, env, expected) => {
    const file = writeTempFile(
      `bad-${Math.random().toString(36).slice(2)}.config.ts`,
      `export default ${body}\n`,
    )
    // Only the override under test: a KAFKA_BROKERS from the caller's environment would hide the file's value.
    const result = await runCli(['run', '--config', file], { env: { KAFKA_BROKERS: '', ...env } })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(expected)
    expect(result.stdout).toBe('')
  })

  it('names a missing config file', async () => {
    const result = await runCli(['run', '--config', 'no/such/file.ts'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('config file not found: no/such/file.ts')
  })

  it('rejects unknown commands and options with usage and exit code 2', async () => {
    expect((await runCli(['frobnicate'])).code).toBe(2)
    const result = await runCli(['score', '--nope', 'x'])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('Usage:')
  })
})
