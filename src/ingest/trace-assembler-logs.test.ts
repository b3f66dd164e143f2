import { describe, expect, it } from 'vitest'
import type { LogRecord, Span } from '../model/index.ts'
import { logRecordBatch } from './log-batch.ts'
import { LOG_BODY_KEY } from './log-record-events.ts'
import { TraceAssembler } from './trace-assembler.ts'

const T1 = 'a'.repeat(32)
const T2 = 'b'.repeat(32)

const span = (traceId: string, spanId: string, name = 'chat', parentSpanId?: string): Span => ({
  traceId,
  spanId,
  parentSpanId,
  name,
  kind: 1,
  startTimeUnixNano: '1000',
  endTimeUnixNano: '2000',
  attributes: {},
  events: [],
  links: [],
  status: { code: 0 },
  resource: {},
  scope: { name: 'test' },
})

const log = (traceId: string, spanId: string, time: string, extra: Partial<LogRecord> = {}): LogRecord => ({
  traceId,
  spanId,
  timeUnixNano: time,
  observedTimeUnixNano: time,
  severityNumber: 9,
  eventName: 'gen_ai.user.message',
  body: { content: `said at ${time}` },
  attributes: { 'gen_ai.provider.name': 'openai' },
  resource: {},
  scope: { name: 'logs' },
  ...extra,
})

const setup = () => {
  const clock = { t: 1_000_000 }
  const assembler = new TraceAssembler<string>({
    isAgentRunSpan: (s) => s.name === 'invoke_agent',
    now: () => clock.t,
    settleMs: 1_000,
    maxTraceAgeMs: 60_000,
  })
  return { clock, assembler }
}

describe('TraceAssembler with log records', () => {
  it('attaches log records to their span as events, whichever arrived first, in time order', () => {
    const { clock, assembler } = setup()
    expect(assembler.addBatch(logRecordBatch([log(T1, '02', '20'), log(T1, '02', '10')]), 'logs-1')).toEqual({
      traces: 1,
      lateSpans: 0,
    })
    assembler.add([span(T1, '01', 'invoke_agent'), span(T1, '02', 'chat', '01')], 'spans-1')
    clock.t += 1_000
    const [ready] = assembler.takeReady()
    expect(ready!.recordRefs).toEqual(['logs-1', 'spans-1'])
    expect(ready!.spans.map((s) => s.spanId)).toEqual(['01', '02'])
    const chat = ready!.spans[1]!
    expect(chat.events.map((e) => [e.name, e.timeUnixNano, e.attributes[LOG_BODY_KEY]])).toEqual([
      ['gen_ai.user.message', '10', { content: 'said at 10' }],
      ['gen_ai.user.message', '20', { content: 'said at 20' }],
    ])
    expect(chat.events[0]!.attributes['gen_ai.provider.name']).toBe('openai')
    expect(ready!.spans[0]!.events).toEqual([])
  })

  it('never takes a log record for a duplicate of its span, nor a span for a duplicate of a log record', () => {
    const { clock, assembler } = setup()
    const many = Array.from({ length: 20 }, (_, i) => span(T1, `s${i}`, 'step', 'root'))
    assembler.addBatch(logRecordBatch([log(T1, 's3', '1')]), 'logs-1')
    assembler.add([span(T1, 'root', 'invoke_agent'), ...many], 'spans-1') // past the Set threshold
    assembler.addBatch(logRecordBatch([log(T1, 's4', '2')]), 'logs-2')
    clock.t += 1_000
    const [ready] = assembler.takeReady()
    expect(assembler.stats().duplicateSpans).toBe(0)
    expect(ready!.spans).toHaveLength(21)
    expect(ready!.spans.find((s) => s.spanId === 's3')!.events).toHaveLength(1)
    expect(ready!.spans.find((s) => s.spanId === 's4')!.events).toHaveLength(1)
  })

  it('attaches a log record delivered twice once', () => {
    const { clock, assembler } = setup()
    assembler.add([span(T1, '01', 'invoke_agent')], 'spans-1')
    assembler.addBatch(logRecordBatch([log(T1, '01', '5')]), 'logs-1')
    assembler.addBatch(logRecordBatch([log(T1, '01', '5')]), 'logs-2')
    clock.t += 1_000
    expect(assembler.takeReady()[0]!.spans[0]!.events).toHaveLength(1)
  })

  it('does not wait for log records that never come: a trace settles on its spans', () => {
    const { clock, assembler } = setup()
    assembler.add([span(T1, '01', 'invoke_agent')], 'spans-1')
    clock.t += 1_000
    const [ready] = assembler.takeReady()
    expect(ready).toMatchObject({ traceId: T1, reason: 'settled', incomplete: false })
    // Log records arriving after the release are late: counted, the trace is not reopened.
    expect(assembler.addBatch(logRecordBatch([log(T1, '01', '5')]), 'logs-1')).toEqual({
      traces: 0,
      lateSpans: 1,
    })
    clock.t += 1_000
    expect(assembler.takeReady()).toEqual([])
  })

  it('log records alone never make a trace look complete; they are released unscored by age', () => {
    const { clock, assembler } = setup()
    assembler.addBatch(logRecordBatch([log(T2, '01', '5')]), 'logs-1')
    clock.t += 1_000
    expect(assembler.takeReady()).toEqual([])
    clock.t += 60_000
    const [ready] = assembler.takeReady()
    expect(ready).toMatchObject({ traceId: T2, reason: 'age', incomplete: true, hasGenAi: false, spans: [] })
    expect(ready!.recordRefs).toEqual(['logs-1'])
  })

  it('counts log records in the buffer, so the caps and backpressure see them', () => {
    const { assembler } = setup()
    assembler.addBatch(logRecordBatch([log(T1, '01', '5'), log(T1, '01', '6')]), 'logs-1', 1_000)
    expect(assembler.stats()).toMatchObject({ bufferedSpans: 2, bufferedBytes: 1_000, openTraces: 1 })
  })
})
