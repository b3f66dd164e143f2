import { readFileSync } from 'node:fs'
import { Writable } from 'node:stream'
import * as tracescore from 'tracescore'
import {
  type AgentRun,
  ConfigError,
  createJsonlSink,
  createPipeline,
  createScorer,
  decodeOtlpTraces,
  defineConfig,
  extractAgentRuns,
  filterRun,
  type MastraMessagePart,
  notScorable,
  OtlpDecodeError,
  resolveConfig,
  type ScoreRecord,
  type Sink,
  type Span,
  SpanKind,
  StatusCode,
  type ToolInvocation,
} from 'tracescore'
import * as ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { loadFixture } from '../fixtures/index.ts'

/**
 * The package's exports, exactly (README, "Public API"). A name added to or dropped from
 * `src/index.ts` fails here on purpose: the public API is chosen, not inherited through
 * `export *` chains.
 */
const publicValues = [
  'ConfigError',
  'OtlpDecodeError',
  'ScorerRunError',
  'SpanKind',
  'StatusCode',
  'StreamErrorRetryProcessor',
  'createJudge',
  'createJsonlSink',
  'createKafkaScoreSink',
  'createLangfuseScoreSink',
  'createOtlpSink',
  'createPhoenixAnnotationSink',
  'createPipeline',
  'createScorer',
  'decodeOtlpTraces',
  'defineConfig',
  'extractAgentRuns',
  'fenceUntrusted',
  'filterRun',
  'judgeFromConfig',
  'judgeModel',
  'loadConfig',
  'notScorable',
  'resolveConfig',
  'withJudge',
]

const publicTypes = [
  'AgentRun',
  'AttributeValue',
  'Attributes',
  'Convention',
  'FilterRunOptions',
  'GovernedJudgeModelOptions',
  'JsonlSinkConfig',
  'Judge',
  'JudgeConfig',
  'JudgeModelResolver',
  'JudgeOptions',
  'KafkaScoreSinkConfig',
  'LangfuseScoreSinkConfig',
  'MastraDBMessage',
  'MastraMessagePart',
  'NotScorable',
  'OtlpEncoding',
  'OtlpSinkConfig',
  'RecordedParts',
  'RunPart',
  'PhoenixAnnotationSinkConfig',
  'Pipeline',
  'PipelineDeps',
  'Processor',
  'RunFilter',
  'ScoreRecord',
  'Scorer',
  'ScorerConfig',
  'ScorerEntry',
  'ScorerRun',
  'ScorerRunInputForAgent',
  'ScorerRunOutputForAgent',
  'ScorerRunResult',
  'Sink',
  'Span',
  'StreamErrorRetryProcessorOptions',
  'ToolInvocation',
  'TracescoreConfig',
  'TracescoreConfigInput',
]

/** Every name `src/index.ts` exports (values and types), read from its export declarations. */
function declaredExports(): { names: string[]; exportStar: boolean } {
  const path = new URL('../../src/index.ts', import.meta.url)
  const source = ts.createSourceFile('index.ts', readFileSync(path, 'utf8'), ts.ScriptTarget.Latest)
  const names: string[] = []
  let exportStar = false
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause
      if (!clause || !ts.isNamedExports(clause)) exportStar = true
      else names.push(...clause.elements.map((e) => e.name.text))
    } else if (
      ts.canHaveModifiers(statement) &&
      ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
    ) {
      exportStar = true // a declaration in the entry itself: the entry only re-exports, by name
    }
  }
  return { names, exportStar }
}

describe('the public API', () => {
  it('exports exactly the chosen names, each by name', () => {
    const { names, exportStar } = declaredExports()
    expect(exportStar).toBe(false)
    expect([...names].sort()).toEqual([...publicValues, ...publicTypes].sort())
  })

  it('has exactly the chosen values at run time', () => {
    expect(Object.keys(tracescore).sort()).toEqual([...publicValues].sort())
  })

  it('keeps internals out of the package', () => {
    for (const internal of [
      'scoreRun',
      'matchesFilter',
      'createRateLimiter',
      'TokenBudget',
      'groupByTrace',
      'scoreTrace',
    ]) {
      expect(tracescore).not.toHaveProperty(internal)
    }
  })
})

describe('the public API, used as the README shows', () => {
  it('decodes a recorded trace, finds its agent run, scores it with a scorer and writes the score to a sink', async () => {
    const fixture = loadFixture('mastra/multi-tool')
    const spans: Span[] = decodeOtlpTraces(fixture.proto)
    expect(decodeOtlpTraces(fixture.json, 'otlp_json')).toEqual(spans)
    expect(spans.some((s) => s.kind === SpanKind.INTERNAL || s.kind === SpanKind.CLIENT)).toBe(true)
    expect(spans.every((s) => s.status.code !== StatusCode.ERROR)).toBe(true)

    const runs: AgentRun[] = extractAgentRuns(spans)
    expect(runs).toHaveLength(1)
    const run = runs[0]!

    const toolSuccess = createScorer({
      id: 'tool-success',
      description: 'Share of tool calls that succeeded',
      type: 'agent',
      prepareRun: filterRun({ partTypes: ['tool-invocation'] }),
    })
      .preprocess(({ run }) => {
        const isTool = (p: MastraMessagePart): p is Extract<MastraMessagePart, { type: 'tool-invocation' }> =>
          p.type === 'tool-invocation'
        const calls: ToolInvocation[] = run.output.flatMap((m) =>
          m.content.parts.filter(isTool).map((p) => p.toolInvocation),
        )
        return { calls: calls.length, failed: calls.filter((c) => c.state === 'output-error').length }
      })
      .generateScore(({ results }) => {
        const { calls, failed } = results.preprocessStepResult
        return calls === 0 ? notScorable('no tool call') : (calls - failed) / calls
      })
    const result = await toolSuccess.run({ input: run.input, output: run.output })
    expect(result.score).toBe(1)

    const lines: string[] = []
    const sink: Sink = createJsonlSink({
      stream: new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk))
          done()
        },
      }),
    })
    const record: ScoreRecord = {
      traceId: run.traceId,
      spanId: run.spanId,
      runId: `${run.traceId}:${run.spanId}`,
      agentName: run.agentName,
      scorerId: toolSuccess.id,
      scorerName: toolSuccess.name,
      scorerKind: 'code',
      score: result.score,
      timestampMs: 0,
    }
    await sink.deliver([record])
    await sink.close()
    expect(JSON.parse(lines.join(''))).toMatchObject({
      traceId: run.traceId,
      scorer: 'tool-success',
      score: 1,
    })
  })

  it('rejects what is not OTLP with OtlpDecodeError', () => {
    expect(() => decodeOtlpTraces('{"resourceSpans": 3}', 'otlp_json')).toThrow(OtlpDecodeError)
  })

  it('validates a configuration written with defineConfig and builds the pipeline from it', () => {
    const input = defineConfig({ sinks: { otlp: false, stdout: true }, metrics: { port: 0 } })
    const config = resolveConfig(input, {})
    expect(config.sinks.stdout).toBe(true)
    const pipeline = createPipeline(config)
    expect(pipeline.ready()).toBe(false)
    expect(() => resolveConfig({ assembly: { settleMs: -1 } }, {})).toThrow(ConfigError)
  })
})
