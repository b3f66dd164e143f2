import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listFixtures } from '../fixtures/index.ts'
import { freePort, repoRoot, runCli } from '../helpers/cli.ts'
import { type Collector, startCollector } from '../helpers/otelcol.ts'

// `tracescore score` on what the OpenTelemetry Collector's file exporter (tools/otelcol, built
// from the upstream Go modules) really writes, in each of its formats: JSON lines, length-prefixed
// protobuf, and zstd, both the default per-message compression (each message compressed, then
// length-prefixed) and the `exporter.file.nativeCompression` gate's one zstd stream per file.
// Each file must score exactly as the OTLP requests that went into the Collector.

const fixtures = listFixtures(['ai-sdk-7-genai', 'openai-agents']).filter((f) =>
  ['multi-tool', 'tool-error', 'handoff', 'single-turn'].includes(f.scenario),
)
const formats = [
  { name: 'json', format: 'json', compression: undefined },
  { name: 'proto', format: 'proto', compression: undefined },
  { name: 'json-zstd', format: 'json', compression: 'zstd' },
  { name: 'proto-zstd', format: 'proto', compression: 'zstd' },
] as const
const outDir = `${repoRoot}test/.tmp/file-exporter`
/** Scoring the requests themselves: one sorted list of score lines. */
let expected: string[] = []

const sortedLines = (stdout: string) => stdout.trim().split('\n').filter(Boolean).sort()

/** Runs the Collector, posts every fixture's OTLP protobuf request to it, stops it (flushing the files). */
async function writeThroughCollector(name: string, args: string[]): Promise<void> {
  const port = await freePort()
  const exporters = formats.flatMap((f) => [
    `  file/${f.name}:`,
    `    path: ${outDir}/${name}.${f.name}`,
    `    format: ${f.format}`,
    ...(f.compression ? [`    compression: ${f.compression}`] : []),
  ])
  const config = [
    'receivers:',
    `  otlp: { protocols: { http: { endpoint: "127.0.0.1:${port}" } } }`,
    'exporters:',
    ...exporters,
    'service:',
    '  telemetry: { metrics: { level: none }, logs: { level: warn } }',
    '  pipelines:',
    `    traces: { receivers: [otlp], exporters: [${formats.map((f) => `file/${f.name}`).join(', ')}] }`,
  ].join('\n')
  const collector: Collector = await startCollector(`file-exporter-${name}`, `${config}\n`, [port], args)
  try {
    for (const fixture of fixtures) {
      const response = await fetch(`http://127.0.0.1:${port}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-protobuf' },
        body: readFileSync(fixture.protoPath),
      })
      expect(response.status, collector.output()).toBe(200)
    }
  } finally {
    await collector.stop()
  }
}

describe("tracescore score on the Collector file exporter's files", { timeout: 600_000 }, () => {
  beforeAll(async () => {
    rmSync(outDir, { recursive: true, force: true })
    mkdirSync(outDir, { recursive: true })
    expect(fixtures.length).toBe(6)
    const direct = await runCli(['score', ...fixtures.map((f) => f.protoPath)])
    expect(direct.code).toBe(0)
    expected = sortedLines(direct.stdout)
    expect(expected.length).toBeGreaterThanOrEqual(fixtures.length)
    await writeThroughCollector('default', [])
    await writeThroughCollector('native', ['--feature-gates=exporter.file.nativeCompression'])
  }, 900_000)

  afterAll(() => rmSync(outDir, { recursive: true, force: true }))

  for (const gate of ['default', 'native']) {
    for (const { name } of formats) {
      it(`${gate} compression, format ${name}: every score as from the requests`, async () => {
        const file = `${outDir}/${gate}.${name}`
        const result = await runCli(['score', file])
        // Nothing but the count of runs a scorer found nothing to score in (tool-success without tools).
        expect(
          result.stderr.split('\n').filter((line) => line && !line.startsWith('tracescore: not scorable (')),
        ).toEqual([])
        expect(result.code).toBe(0)
        expect(sortedLines(result.stdout)).toEqual(expected)
      })
    }
  }

  it('the files are what the exporter documents: length-prefixed protobuf, zstd magic, JSON lines', () => {
    const proto = readFileSync(`${outDir}/default.proto`)
    expect(proto.readUInt32BE(0) + 4).toBeLessThanOrEqual(proto.length)
    expect(proto[4]).toBe(0x0a)
    // Default: each message compressed, after its length; native: one zstd stream.
    expect(readFileSync(`${outDir}/default.proto-zstd`).subarray(4, 8).toString('hex')).toBe('28b52ffd')
    expect(readFileSync(`${outDir}/native.proto-zstd`).subarray(0, 4).toString('hex')).toBe('28b52ffd')
    expect(readFileSync(`${outDir}/default.json`, 'utf8').startsWith('{"resourceSpans"')).toBe(true)
  })
})
