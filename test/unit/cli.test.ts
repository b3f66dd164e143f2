import { readFileSync, writeFileSync } from 'node:fs'
import { gzipSync, zstdCompressSync } from 'node:zlib'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { listFixtures } from '../fixtures/index.ts'
import { repoRoot, runCli, writeTempFile } from '../helpers/cli.ts'
import { hugeTrace } from '../helpers/fault-records.ts'

/** The JSON lines a score command printed. */
const jsonLines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))

/** A stack trace line as Node prints it. */
const STACK_LINE = /^\s+at .+[(:]/m

// The built CLI as a process (bin/tracescore.js → dist/, built by `npm ci` / scripts/test-all.sh).
describe('tracescore score', () => {
  it('scores OTLP protobuf and JSON files and prints one JSON line per score', async () => {
    const fixtures = listFixtures().filter((f) => f.producer === 'ai-sdk-7-genai')
    const multi = fixtures.find((f) => f.scenario === 'multi-tool')!
    const failing = fixtures.find((f) => f.scenario === 'tool-error')!
    const result = await runCli(['score', multi.protoPath, failing.jsonPath])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const lines = jsonLines(result.stdout)
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

  it('scores a valid file of 125,000 spans (one trace) without overflowing the stack', async () => {
    const path = `${repoRoot}test/.tmp/125k-spans.pb`
    writeFileSync(path, hugeTrace(125_000, 125_000).values[0]!)
    const result = await runCli(['score', path], { timeoutMs: 120_000 })
    // The run made no tool call: tool-success says so, and nothing else is reported.
    expect(result.stderr).toBe(
      'tracescore: not scorable (1 run(s)): toolSuccess: the run made no tool call\n',
    )
    expect(result.code).toBe(0)
    const lines = jsonLines(result.stdout)
    expect(lines).toEqual([expect.objectContaining({ agentName: 'huge', scorer: 'answered', score: 1 })])
  }, 120_000)

  it('stops reading a file at the size cap (/dev/zero), naming the cap and how to change it', async () => {
    const result = await runCli(['score', '/dev/zero', '--max-file-mib', '2'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('/dev/zero: larger than the 2 MiB limit for one file')
    expect(result.stderr).toContain('--max-file-mib')
  })

  it('reads gzip and zstd files, scoring them as the plain file', async () => {
    const multi = listFixtures().find((f) => f.producer === 'ai-sdk-7-genai' && f.scenario === 'multi-tool')!
    const plain = readFileSync(multi.protoPath)
    const gz = writeTempFile('multi.pb.gz', gzipSync(plain))
    const zst = writeTempFile('multi.pb.zst', zstdCompressSync(plain))
    const expected = await runCli(['score', multi.protoPath])
    for (const file of [gz, zst]) {
      const result = await runCli(['score', file])
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      expect(result.stdout).toBe(expected.stdout)
    }
  })

  it('names a compressed file that does not decompress, and caps what decompression may produce', async () => {
    const broken = writeTempFile('broken.gz', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 1, 2, 3, 4]))
    const bomb = writeTempFile('bomb.gz', gzipSync(Buffer.alloc(3 * 2 ** 20)))
    const result = await runCli(['score', broken, bomb, '--max-file-mib', '2'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`${broken}: a gzip file that does not decompress`)
    expect(result.stderr).toContain(`${bomb}: larger than the 2 MiB limit for one file`)
  })

  it('warns about an empty file and scores the others', async () => {
    const empty = writeTempFile('empty.pb', '')
    const multi = listFixtures().find((f) => f.producer === 'ai-sdk-7-genai' && f.scenario === 'multi-tool')!
    const result = await runCli(['score', empty, multi.protoPath])
    expect(result.code).toBe(0)
    expect(result.stderr).toBe(`tracescore: warning: ${empty} is empty; nothing to score\n`)
    expect(result.stdout.trim().split('\n').length).toBeGreaterThan(0)
  })

  it('says a text file is not an OTLP trace file, and what one looks like', async () => {
    const file = writeTempFile('notes.txt', 'Meeting notes\n- ship the scorer\n')
    const result = await runCli(['score', file])
    expect(result.code).toBe(1)
    // The decoder's own words ("not an OTLP payload (looks like text…)") or, for a decoder that only
    // sees protobuf, this command's.
    expect(result.stderr).toMatch(new RegExp(`${file}: not an OTLP (trace file|payload)`))
    expect(result.stderr).toContain(
      "Expected an OTLP ExportTraceServiceRequest (protobuf or JSON) or a file the Collector's file exporter wrote",
    )
    expect(result.stderr).not.toMatch(STACK_LINE)
  })

  it('names a missing file and rejects a bad --max-file-mib as usage', async () => {
    const missing = await runCli(['score', 'no/such/file.pb'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe('tracescore: no/such/file.pb: no such file\n')
    const usage = await runCli(['score', 'x.pb', '--max-file-mib', 'lots'])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain('--max-file-mib expects a number of MiB > 0')
  })

  it('gives not-scorable decisions, never a 0, on a trace recorded with content capture off', async () => {
    const result = await runCli(['score', `${repoRoot}test/fixtures/content-off/ai-sdk-7-genai-refund.pb`])
    expect(result.code).toBe(0)
    // No score line at all: the example scorers need the final text and the tool results.
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain(
      "tracescore: not scorable (1 run(s)): answered: the trace did not record the run's final text (content capture off?)",
    )
    expect(result.stderr).toContain("toolSuccess: the trace did not record the run's tool results")
  })
})

describe('tracescore inspect', () => {
  it('shows per trace the conventions, the runs with what each holds, and what was not recorded', async () => {
    const multi = listFixtures(['openinference-openai']).find((f) => f.scenario === 'multi-tool')!
    const contentOff = `${repoRoot}test/fixtures/content-off/ai-sdk-7-genai-refund.pb`
    const result = await runCli(['inspect', multi.protoPath, contentOff])
    expect(result.code).toBe(0)
    expect(result.stderr).toBe('')
    const traces = result.stdout.split(/^(?=trace )/m)
    expect(traces).toHaveLength(2)
    expect(traces[0]).toMatch(/^trace [0-9a-f]{32}: \d+ span\(s\), \d+ GenAI; conventions: openinference\n/)
    expect(traces[0]).toContain('not recorded: nothing (every part recorded)')
    expect(traces[0]).toMatch(/tool calls 2 \(2 result\(s\), 0 error\(s\)\)/)
    expect(traces[1]).toContain('conventions: genai')
    expect(traces[1]).toContain('run 1: support [')
    expect(traces[1]).toContain('not recorded: input, system, final text, tool args, tool results')
    expect(traces[1]).toContain('tool calls 2 (0 result(s), 1 error(s)): ')
  })

  it('prints one JSON object per trace with --json, and names the GenAI spans no run used', async () => {
    const trace = {
      resourceSpans: [
        {
          resource: { attributes: [] },
          scopeSpans: [
            {
              scope: { name: 'acme-llm' },
              spans: [
                {
                  traceId: '5b8efff798038103d269b633813fc60c',
                  spanId: 'eee19b7ec3c1b174',
                  name: 'chat gpt-5',
                  kind: 3,
                  startTimeUnixNano: '1',
                  endTimeUnixNano: '2',
                  attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }],
                },
              ],
            },
          ],
        },
      ],
    }
    const file = writeTempFile('inspect-bare-model-call.json', JSON.stringify(trace))
    const result = await runCli(['inspect', '--json', file])
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toMatchObject({
      traceId: '5b8efff798038103d269b633813fc60c',
      conventions: ['genai'],
      runs: [],
      noRun: 'no-agent-span',
      unusedGenAiSpans: [
        { spanId: 'eee19b7ec3c1b174', name: 'chat gpt-5', role: 'model', convention: 'genai' },
      ],
    })
  })

  it('needs a file, and reports an unreadable one with exit code 1', async () => {
    expect((await runCli(['inspect'])).code).toBe(2)
    const missing = await runCli(['inspect', 'no/such/file.pb'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toBe('tracescore: no/such/file.pb: no such file\n')
  })
})

/** The OTLP variables a caller's environment may set, cleared so only the one under test counts. */
const OTLP_ENV_CLEARED = Object.fromEntries(
  ['ENDPOINT', 'PROTOCOL', 'TIMEOUT', 'COMPRESSION', 'HEADERS'].flatMap((key) => [
    [`OTEL_EXPORTER_OTLP_${key}`, ''],
    [`OTEL_EXPORTER_OTLP_TRACES_${key}`, ''],
  ]),
)

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
    [
      'a getter that throws',
      `{ get kafka() { throw new Error('vault unreachable') } }`,
      {},
      'kafka: reading this value threw: vault unreachable',
    ],
    [
      'a sink URL with a password',
      `{ sinks: { phoenix: { url: 'http://admin:hunter2@127.0.0.1:6006' } } }`,
      {},
      'sinks.phoenix.url: a user name or password in the URL is not accepted',
    ],
    [
      'an OTLP endpoint with a password from the environment',
      `{}`,
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://admin:hunter2@collector:4318' },
      'OTEL_EXPORTER_OTLP_ENDPOINT: a user name or password in the URL is not accepted',
    ],
    [
      'an OTLP protocol the sink cannot speak',
      `{}`,
      { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      'OTEL_EXPORTER_OTLP_PROTOCOL: expected http/protobuf or http/json',
    ],
    [
      'an OTLP timeout that is not a number',
      `{}`,
      { OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: 'soon' },
      'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: expected milliseconds',
    ],
    [
      'OTLP headers that do not decode',
      `{}`,
      { OTEL_EXPORTER_OTLP_HEADERS: 'authorization=%zz' },
      'OTEL_EXPORTER_OTLP_HEADERS: expected key=value pairs',
    ],
    [
      'a Langfuse sink without its secret key',
      `{ sinks: { langfuse: { url: 'http://127.0.0.1:3000', publicKey: 'pk', secretKey: '' } } }`,
      { LANGFUSE_SECRET_KEY: '' },
      'sinks.langfuse.secretKey: expected a key (or LANGFUSE_SECRET_KEY)',
    ],
  ]
  it.each(table)('%s', async (_label, body, env, expected) => {
    const file = writeTempFile(
      `bad-${Math.random().toString(36).slice(2)}.config.ts`,
      `export default ${body}\n`,
    )
    // Only the override under test: a KAFKA_BROKERS from the caller's environment would hide the
    // file's value (and an unreachable broker keeps a config that passed from waiting for one).
    const result = await runCli(['run', '--config', file], {
      env: { KAFKA_BROKERS: '', TRACESCORE_METRICS_PORT: '0', ...OTLP_ENV_CLEARED, ...env },
    })
    expect(result.code).toBe(2)
    expect(result.stderr).toContain(expected)
    expect(result.stderr).not.toMatch(STACK_LINE)
    expect(result.stderr).not.toContain('hunter2')
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

describe('unexpected errors', () => {
  afterEach(() => {
    vi.doUnmock('../../src/commands/score.ts')
    vi.restoreAllMocks()
    delete process.env.TRACESCORE_LOG_LEVEL
  })

  /** Runs `main` in this process with a score command that fails unexpectedly; returns code and stderr. */
  async function failingScore(args: string[]) {
    vi.resetModules()
    vi.doMock('../../src/commands/score.ts', () => ({
      scoreFiles: async () => {
        throw new TypeError('something nobody foresaw')
      },
    }))
    const errors: string[] = []
    vi.spyOn(console, 'error').mockImplementation((line: string) => {
      errors.push(line)
    })
    const { main } = await import('../../src/cli.ts')
    const code = await main(['score', 'any.pb', '--config', 'config/tracescore.config.ts', ...args])
    return { code, stderr: errors.join('\n') }
  }

  it('print their message without a stack trace, and exit 1', async () => {
    const { code, stderr } = await failingScore([])
    expect(code).toBe(1)
    expect(stderr).toBe(
      'tracescore: TypeError: something nobody foresaw (run with --debug for the stack trace)',
    )
  })

  it('print the stack trace with --debug', async () => {
    const { code, stderr } = await failingScore(['--debug'])
    expect(code).toBe(1)
    expect(stderr).toContain('TypeError: something nobody foresaw')
    expect(stderr).toMatch(STACK_LINE)
  })
})
