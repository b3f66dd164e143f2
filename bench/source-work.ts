/**
 * What the span source does per record, without Kafka, for the ingest benchmarks: scan the record
 * (`readSpans`), assemble its spans, hold and release its offsets; `takeReady` releases the settled
 * traces and decodes the spans of those with GenAI activity, as scoring reads them.
 */
import { OffsetTracker, type RecordRef } from '../src/ingest/offset-tracker.ts'
import { readSpans } from '../src/ingest/record-reader.ts'
import { doorFilterOf, type SamplingDoor } from '../src/ingest/sampling-door.ts'
import { isGeneratedAgentSpan } from '../src/ingest/testing/agent-traffic.ts'
import { TraceAssembler } from '../src/ingest/trace-assembler.ts'

/** The source's work; `door`: records are read through the sampling door of scorers at its rate. */
export function createSourceWork(now: () => number = Date.now, door?: SamplingDoor) {
  const filter = door && doorFilterOf(door)
  const assembler = new TraceAssembler<RecordRef>({
    isAgentRunSpan: isGeneratedAgentSpan,
    now,
    settleMs: 200,
    maxBufferedSpans: 1_000_000,
  })
  const tracker = new OffsetTracker()
  let records = 0
  let decodedSpans = 0
  return {
    /** Records added so far. */
    records: () => records,
    /** Spans decoded so far (of released traces with GenAI activity). */
    decodedSpans: () => decodedSpans,
    add(payload: Buffer): void {
      const ref = tracker.open('bench', records % 2, String(records >> 1))
      records++
      const { traces } = assembler.addBatch(readSpans(payload, 'otlp_proto', filter), ref, payload.length)
      tracker.hold(ref, traces)
      tracker.release(ref)
    },
    takeReady(): void {
      for (const trace of assembler.takeReady()) {
        if (trace.hasGenAi) decodedSpans += trace.spans.length
        for (const ref of trace.recordRefs) tracker.release(ref)
      }
    },
  }
}
