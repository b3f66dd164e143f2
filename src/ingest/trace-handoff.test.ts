import { describe, expect, it } from 'vitest'
import { silentLogger } from '../ops/logger.ts'
import { OffsetTracker, type RecordRef } from './offset-tracker.ts'
import type { ReadyTrace, TraceAssembler } from './trace-assembler.ts'
import { createTraceHandoff } from './trace-handoff.ts'

/** A released trace with nothing to score (no agent or GenAI span): only `incomplete` matters here. */
const released = (traceId: string, incomplete: boolean) =>
  ({
    traceId,
    spans: [],
    agentSpanIds: [],
    hasGenAi: false,
    incomplete,
    reason: incomplete ? 'age' : 'settled',
    supersedes: false,
    recordRefs: [],
  }) as ReadyTrace<RecordRef>

describe('createTraceHandoff counters', () => {
  it('counts the traces released incomplete apart from the complete ones', () => {
    const batches = { ready: [released('a', false), released('b', true)], flushed: [released('c', true)] }
    const assembler = {
      takeReady: () => batches.ready.splice(0),
      flush: () => batches.flushed.splice(0),
    } as unknown as TraceAssembler<RecordRef>
    const handoff = createTraceHandoff({
      assembler,
      tracker: new OffsetTracker(),
      process: async () => undefined,
      targets: [],
      maxInFlight: 1,
      logger: silentLogger(),
      onUndeliverable: () => {},
    })
    handoff.collectReady()
    expect(handoff.counters()).toMatchObject({ tracesReleased: 2, tracesIncomplete: 1 })
    handoff.flush()
    expect(handoff.counters()).toMatchObject({ tracesReleased: 3, tracesIncomplete: 2 })
  })
})
