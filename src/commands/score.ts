import type { TracescoreConfig } from '../config/index.ts'
import { groupByTrace, scoreTrace } from '../score-trace.ts'
import { judgeFromConfig } from '../scoring/judge-from-config.ts'
import { createJsonlSink } from '../sink/index.ts'
import { useProfiles } from '../transform/profiles/index.ts'
import { DEFAULT_MAX_FILE_MIB, readOtlpFiles } from './otlp-files.ts'

/** Options of `tracescore score`. */
interface ScoreFilesOptions {
  /** Cap on one file, in bytes (default {@link DEFAULT_MAX_FILE_MIB} MiB). */
  maxFileBytes?: number
}

/**
 * `tracescore score FILE...`: scores OTLP files without Kafka; one JSON line per score on stdout,
 * problems on stderr. Resolves to 0 when every file was read and decoded (empty files and files
 * without agent runs are warned about), 1 when some file could not be (the others are still scored).
 */
export async function scoreFiles(
  files: string[],
  config: TracescoreConfig,
  options: ScoreFilesOptions = {},
): Promise<number> {
  useProfiles(config.conventions)
  const judge = judgeFromConfig(config)
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_MIB * 2 ** 20
  const { spans, failed } = await readOtlpFiles(files, maxBytes)
  const sink = createJsonlSink()
  let runs = 0
  const notScorable = new Map<string, number>()
  for (const traceSpans of groupByTrace(spans).values()) {
    const scored = await scoreTrace(traceSpans, { scorers: config.scorers, judge })
    const traceId = traceSpans[0]!.traceId
    runs += scored.runs.length
    if (scored.error) console.error(`tracescore: trace ${traceId}: ${scored.error}`)
    if (scored.noRun) {
      console.error(
        `tracescore: warning: trace ${traceId} shows GenAI activity (${scored.noRun.conventions.join(', ')}) ` +
          `but gave no agent run (${scored.noRun.reason}); \`tracescore inspect\` shows what was understood`,
      )
    }
    for (const d of scored.decisions) {
      if (d.outcome !== 'not-scorable') continue
      const key = `${d.scorer}: ${d.detail ?? 'the scorer found nothing to score'}`
      notScorable.set(key, (notScorable.get(key) ?? 0) + 1)
    }
    if (scored.records.length > 0) await sink.deliver(scored.records)
  }
  await sink.close()
  // Not-scorable runs give no score line (never a 0 for what was not recorded): said here instead.
  for (const [what, count] of notScorable)
    console.error(`tracescore: not scorable (${count} run(s)): ${what}`)
  if (spans.length > 0 && runs === 0) {
    console.error(
      `tracescore: warning: no agent run in ${spans.length} span(s); agent runs are recognised in ` +
        'OpenTelemetry GenAI, OpenInference, OpenLLMetry, Mastra and AI SDK spans (and the frameworks ' +
        'in src/transform/README.md); `tracescore inspect FILE` shows what was understood',
    )
  }
  return failed > 0 ? 1 : 0
}
