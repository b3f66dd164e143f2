import type { AgentRun } from '../model/index.ts'
import { groupByTrace } from '../score-trace.ts'
import { extractAgentRuns } from '../transform/index.ts'
import { readTrace, type TraceReading } from '../transform/trace-gaps.ts'
import { DEFAULT_MAX_FILE_MIB, readOtlpFiles } from './otlp-files.ts'

/** Options of `tracescore inspect`. */
interface InspectOptions {
  /** One JSON object per trace instead of text. */
  json?: boolean
  maxFileBytes?: number
  /** Where the report goes (default stdout). */
  write?: (text: string) => void
}

/**
 * `tracescore inspect FILE...`: what tracescore understands of the traces in OTLP files, per trace:
 * the conventions recognised, the runs found with what each holds (and which parts its trace did
 * not record), and the GenAI spans no run used. Scores nothing, needs no configuration.
 */
export async function inspectFiles(files: string[], options: InspectOptions = {}): Promise<number> {
  const write = options.write ?? ((text: string) => process.stdout.write(`${text}\n`))
  const { spans, failed } = await readOtlpFiles(files, options.maxFileBytes ?? DEFAULT_MAX_FILE_MIB * 2 ** 20)
  for (const trace of groupByTrace(spans).values()) {
    const reading = readTrace(trace, extractAgentRuns(trace))
    write(options.json ? JSON.stringify(readingSummary(reading)) : formatReading(reading))
  }
  return failed > 0 ? 1 : 0
}

const PART_LABELS = {
  input: 'input',
  system: 'system',
  finalText: 'final text',
  toolArguments: 'tool args',
  toolResults: 'tool results',
}

/** What a run holds, in numbers and flags. */
function runSummary(run: AgentRun) {
  const parts = run.output.flatMap((message) => message.content.parts)
  const calls = parts.flatMap((part) => (part.type === 'tool-invocation' ? [part.toolInvocation] : []))
  const finalText = run.output.at(-1)?.content.content ?? ''
  return {
    spanId: run.spanId,
    agentName: run.agentName ?? null,
    convention: run.convention,
    status: run.status,
    ...(run.parentRunSpanId ? { parentRunSpanId: run.parentRunSpanId } : {}),
    ...(run.conversationId ? { conversationId: run.conversationId } : {}),
    inputMessages: run.input.inputMessages.length,
    rememberedMessages: run.input.rememberedMessages.length,
    systemMessages: run.input.systemMessages.length,
    toolCalls: calls.length,
    toolResults: calls.filter((call) => call.state === 'result').length,
    toolErrors: calls.filter((call) => call.state === 'output-error').length,
    tools: [...new Set(calls.map((call) => call.toolName))],
    finalTextChars: finalText.length,
    finalText: finalText.length > 80 ? `${finalText.slice(0, 77)}...` : finalText,
    recorded: run.recorded ?? null,
    notes: run.notes ?? [],
  }
}

/** One trace's reading as plain data (`--json`). */
export function readingSummary(reading: TraceReading) {
  return {
    traceId: reading.traceId,
    spans: reading.spanCount,
    genAiSpans: reading.genAiSpans.length,
    conventions: reading.conventions,
    runs: reading.runs.map(runSummary),
    unusedGenAiSpans: reading.unused,
    ...(reading.noRun ? { noRun: reading.noRun } : {}),
  }
}

/** One trace's reading as text for a person. */
export function formatReading(reading: TraceReading): string {
  const summary = readingSummary(reading)
  const lines = [
    `trace ${summary.traceId}: ${summary.spans} span(s), ${summary.genAiSpans} GenAI; conventions: ${summary.conventions.join(', ') || 'none recognised'}`,
  ]
  if (summary.noRun) lines.push(`  no agent run: ${summary.noRun}`)
  summary.runs.forEach((run, index) => {
    const parent = run.parentRunSpanId ? `, called by run ${run.parentRunSpanId}` : ''
    lines.push(
      `  run ${index + 1}: ${run.agentName ?? '(no agent name)'} [span ${run.spanId}, ${run.convention}, ${run.status}${parent}]`,
      `    input ${run.inputMessages} message(s), history ${run.rememberedMessages}, system ${run.systemMessages}; ` +
        `tool calls ${run.toolCalls} (${run.toolResults} result(s), ${run.toolErrors} error(s))${run.tools.length ? `: ${run.tools.join(', ')}` : ''}`,
      `    final text (${run.finalTextChars} chars): ${JSON.stringify(run.finalText)}`,
    )
    if (run.recorded) {
      const missing = Object.entries(run.recorded).flatMap(([part, recorded]) =>
        recorded ? [] : [PART_LABELS[part as keyof typeof PART_LABELS]],
      )
      lines.push(`    not recorded: ${missing.length ? missing.join(', ') : 'nothing (every part recorded)'}`)
    }
    for (const note of run.notes) lines.push(`    note: ${note}`)
  })
  if (summary.unusedGenAiSpans.length > 0) {
    lines.push(`  GenAI spans no run used: ${summary.unusedGenAiSpans.length}`)
    for (const span of summary.unusedGenAiSpans.slice(0, 20))
      lines.push(`    - ${span.spanId} ${JSON.stringify(span.name)} (${span.role}, ${span.convention})`)
    if (summary.unusedGenAiSpans.length > 20)
      lines.push(`    … and ${summary.unusedGenAiSpans.length - 20} more`)
  }
  return lines.join('\n')
}
