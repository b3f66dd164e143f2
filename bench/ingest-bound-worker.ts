/**
 * The ingest benchmark's second thread (`twoThreadBound` in `ingest.bench.ts`): what the span
 * source does per record — scan, assemble, hold and release offsets, decode the spans of every
 * released trace with GenAI activity — on records the main thread copies to it per fetched batch.
 * Replies `{ records }` (read so far) after each batch; `'reset'` starts a new round with a fresh
 * assembler.
 */
import { parentPort } from 'node:worker_threads'
import { OffsetTracker, type RecordRef } from '../src/ingest/offset-tracker.ts'
import { readSpans } from '../src/ingest/record-reader.ts'
import { isGeneratedAgentSpan } from '../src/ingest/testing/agent-traffic.ts'
import { TraceAssembler } from '../src/ingest/trace-assembler.ts'

const port = parentPort!
const fresh = () =>
  new TraceAssembler<RecordRef>({
    isAgentRunSpan: isGeneratedAgentSpan,
    settleMs: 200,
    maxBufferedSpans: 1_000_000,
  })
let assembler = fresh()
let tracker = new OffsetTracker()
let records = 0

port.on('message', (message: { bytes: ArrayBuffer; lengths: number[] } | 'reset') => {
  if (message === 'reset') {
    assembler = fresh()
    tracker = new OffsetTracker()
    records = 0
    return
  }
  let offset = 0
  for (const length of message.lengths) {
    const payload = Buffer.from(message.bytes, offset, length)
    offset += length
    const ref = tracker.open('bench', 0, String(records++))
    const { traces } = assembler.addBatch(readSpans(payload, 'otlp_proto'), ref, length)
    tracker.hold(ref, traces)
    tracker.release(ref)
  }
  for (const trace of assembler.takeReady()) {
    if (trace.hasGenAi && trace.spans.length === 0) throw new Error(`trace ${trace.traceId} without spans`)
    for (const ref of trace.recordRefs) tracker.release(ref)
  }
  port.postMessage({ records })
})
