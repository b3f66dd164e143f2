/**
 * Log-based GenAI events as a model call's content, through the assembler and the transform: a
 * trace whose prompts and completions are only in log records (the form OpenTelemetry's GenAI
 * instrumentations move to) is read exactly when the records arrive, and from its spans alone,
 * without content, when they do not.
 */
import { describe, expect, it } from 'vitest'
import type { AgentRun, LogRecord } from '../model/index.ts'
import { extractAgentRuns, isAgentRunSpan } from '../transform/index.ts'
import { logRecordBatch } from './log-batch.ts'
import { attachLogRecords } from './log-record-events.ts'
import {
  contentlessSpans,
  contentOf,
  detailsEvents,
  LOG_CONTENT_TRUTH,
  perMessageEvents,
} from './testing/log-content-trace.ts'
import { TraceAssembler } from './trace-assembler.ts'

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'

/** The run the assembler releases for the spans plus `logs`, read by the transform. */
function runOf(logs: LogRecord[]): AgentRun {
  const clock = { t: 0 }
  const assembler = new TraceAssembler<string>({ isAgentRunSpan, now: () => clock.t, settleMs: 1_000 })
  if (logs.length > 0) assembler.addBatch(logRecordBatch(logs), 'logs')
  assembler.add(contentlessSpans(TRACE), 'spans')
  clock.t += 1_000
  const [trace] = assembler.takeReady()
  const runs = extractAgentRuns(trace!.spans)
  expect(runs).toHaveLength(1)
  return runs[0]!
}

describe('log-based GenAI events as content', () => {
  it('without its log records, the run has no system prompt, no history and no final text', () => {
    const run = runOf([])
    expect(run.input.systemMessages).toEqual([])
    expect(run.input.rememberedMessages).toEqual([])
    expect(run.recorded).toMatchObject({ system: false, input: false, finalText: false })
  })

  for (const [form, logs, sourceNotes] of [
    ['gen_ai.client.inference.operation.details', detailsEvents(TRACE), DETAILS_NOTES],
    [
      'per-message events (gen_ai.user.message, gen_ai.choice, ...)',
      perMessageEvents(TRACE),
      PER_MESSAGE_NOTES,
    ],
  ] as const) {
    it(`reads the system prompt, the history and the answer from ${form}`, () => {
      const run = runOf([...logs])
      expect(contentOf(run)).toEqual(LOG_CONTENT_TRUTH)
      expect(run.recorded).toMatchObject({ system: true, input: true, finalText: true })
    })

    it(`says in the run notes that the content came from log records (${form})`, () => {
      expect(logNotes(runOf([...logs]))).toEqual(sourceNotes)
    })

    it(`says nothing of log records when the same events are span events (${form})`, () => {
      // The same events recorded on the span itself (the older way): same content, no such note.
      const spans = attachLogRecords(contentlessSpans(TRACE), [...logs]).spans.map((span) => ({
        ...span,
        events: span.events.map(({ fromLog: _, ...event }) => event),
      }))
      const [run] = extractAgentRuns(spans)
      expect(contentOf(run!)).toEqual(LOG_CONTENT_TRUTH)
      expect(logNotes(run!)).toEqual([])
    })
  }

  it('says nothing of log records when none came', () => {
    expect(logNotes(runOf([]))).toEqual([])
  })
})

/** The notes that say which content came from log records. */
const logNotes = (run: AgentRun) => (run.notes ?? []).filter((note) => note.includes('log records')).sort()

const DETAILS_NOTES = [
  'input messages read from log records (gen_ai.client.inference.operation.details events)',
  'output messages read from log records (gen_ai.client.inference.operation.details events)',
  'system instructions read from log records (gen_ai.client.inference.operation.details events)',
]

const PER_MESSAGE_NOTES = [
  'input messages read from log records (gen_ai.*.message events)',
  'output messages read from log records (gen_ai.choice events)',
]
