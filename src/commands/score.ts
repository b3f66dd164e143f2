import { readFile } from 'node:fs/promises'
import type { TracescoreConfig } from '../config/index.ts'
import { decodeOtlpJsonLines, decodeOtlpTraces, detectOtlpEncoding } from '../ingest/decode/index.ts'
import type { Span } from '../model/index.ts'
import { groupByTrace, scoreTrace } from '../score-trace.ts'
import { configureJudgeFromConfig } from '../scoring/judge-governance.ts'
import { createJsonlSink } from '../sink/index.ts'

/** Decodes one OTLP file: a protobuf or JSON export request, or the Collector file exporter's JSON lines. */
export function decodeOtlpFile(bytes: Uint8Array): Span[] {
  if (detectOtlpEncoding(bytes) === 'otlp_proto') return decodeOtlpTraces(bytes, 'otlp_proto')
  const text = Buffer.from(bytes).toString('utf8')
  try {
    return decodeOtlpTraces(text, 'otlp_json')
  } catch (error) {
    if (text.trim().includes('\n')) return decodeOtlpJsonLines(text)
    throw error
  }
}

/** `tracescore score FILE...`: scores OTLP files without Kafka; one JSON line per score on stdout. */
export async function scoreFiles(files: string[], config: TracescoreConfig): Promise<number> {
  configureJudgeFromConfig(config)
  const spans: Span[] = []
  let failed = 0
  for (const file of files) {
    try {
      spans.push(...decodeOtlpFile(await readFile(file)))
    } catch (error) {
      failed++
      console.error(`tracescore: ${file}: ${(error as Error).message}`)
    }
  }
  const sink = createJsonlSink()
  for (const traceSpans of groupByTrace(spans).values()) {
    const { records } = await scoreTrace(traceSpans, { scorers: config.scorers })
    if (records.length > 0) await sink.deliver(records)
  }
  await sink.close()
  return failed > 0 ? 1 : 0
}
