import { context, trace } from '@opentelemetry/api'
import { SeverityNumber } from '@opentelemetry/api-logs'
import { JsonLogsSerializer, ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer'
import { resourceFromAttributes } from '@opentelemetry/resources'
import {
  InMemoryLogRecordExporter,
  LoggerProvider,
  type ReadableLogRecord,
  SimpleLogRecordProcessor,
} from '@opentelemetry/sdk-logs'
import { describe, expect, it } from 'vitest'
import { decodeOtlpLogs, MAX_VALUE_DEPTH } from './index.ts'
import { errorOf } from './testing/error-of.ts'
import { ProtoWriter } from './testing/proto-writer.ts'

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c'
const SPAN_ID = 'b7ad6b7169203331'
const INPUT = [{ role: 'user', parts: [{ type: 'text', content: 'Where is my order #123? ✓' }] }]

/** Log records made by the real OpenTelemetry JS SDK: a GenAI content event inside a span, and a plain log. */
function recordSdkLogs(): ReadableLogRecord[] {
  const exporter = new InMemoryLogRecordExporter()
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': 'support-agent' }),
    processors: [new SimpleLogRecordProcessor({ exporter })],
  })
  const logger = provider.getLogger('gen_ai.test', '0.9.1')
  const spanContext = { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: 1 }
  logger.emit({
    eventName: 'gen_ai.client.inference.operation.details',
    timestamp: [1747872000, 5],
    severityNumber: SeverityNumber.INFO,
    attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': INPUT as never },
    context: traceContext(spanContext),
  })
  logger.emit({
    eventName: 'gen_ai.user.message',
    timestamp: [1747872000, 6],
    body: { content: 'hello', role: 'user' },
    context: traceContext(spanContext),
  })
  logger.emit({
    body: 'a plain log without a span',
    severityText: 'WARN',
    severityNumber: SeverityNumber.WARN,
  })
  return exporter.getFinishedLogRecords()
}

/** A context whose current span is `spanContext`: where the SDK takes a log record's ids from. */
function traceContext(spanContext: { traceId: string; spanId: string; traceFlags: number }) {
  return trace.setSpanContext(context.active(), spanContext)
}

describe('decodeOtlpLogs', () => {
  for (const [encoding, serialize] of [
    ['otlp_proto', (records: ReadableLogRecord[]) => ProtobufLogsSerializer.serializeRequest(records)!],
    ['otlp_json', (records: ReadableLogRecord[]) => JsonLogsSerializer.serializeRequest(records)!],
  ] as const) {
    it(`reads what the OpenTelemetry SDK exports (${encoding}): ids, event names, bodies, attributes`, () => {
      const payload = serialize(recordSdkLogs())
      const records = decodeOtlpLogs(payload)
      expect(records).toHaveLength(3)
      const [details, user, plain] = records
      expect(details).toMatchObject({
        traceId: TRACE_ID,
        spanId: SPAN_ID,
        eventName: 'gen_ai.client.inference.operation.details',
        timeUnixNano: '1747872000000000005',
        severityNumber: SeverityNumber.INFO,
        body: null,
        resource: { 'service.name': 'support-agent' },
        scope: { name: 'gen_ai.test', version: '0.9.1' },
      })
      expect(details!.attributes['gen_ai.input.messages']).toEqual(INPUT)
      expect(user).toMatchObject({
        eventName: 'gen_ai.user.message',
        body: { content: 'hello', role: 'user' },
      })
      expect(plain).toMatchObject({ traceId: '', spanId: '', eventName: '', severityText: 'WARN' })
      expect(plain!.body).toBe('a plain log without a span')
      expect(BigInt(plain!.observedTimeUnixNano)).toBeGreaterThan(0n)
    })
  }

  it('takes the event name from the `event.name` attribute older SDKs write', () => {
    const payload = JSON.stringify({
      resourceLogs: [
        {
          scopeLogs: [
            {
              logRecords: [{ attributes: [{ key: 'event.name', value: { stringValue: 'gen_ai.choice' } }] }],
            },
          ],
        },
      ],
    })
    expect(decodeOtlpLogs(payload)[0]!.eventName).toBe('gen_ai.choice')
  })

  it('names the JSON path of a bad field, in the logs request', () => {
    const payload = JSON.stringify({
      resourceLogs: [{ scopeLogs: [{ logRecords: [{}, { traceId: 'abc' }] }] }],
    })
    const error = errorOf(() => decodeOtlpLogs(payload))
    expect(error.code).toBe('invalid_id')
    expect(error.path).toBe('resourceLogs[0].scopeLogs[0].logRecords[1].traceId')
  })

  it('rejects a protobuf trace id of the wrong length, with its offset', () => {
    const payload = new ProtoWriter()
      .message(1, (rl) => rl.message(2, (sl) => sl.message(2, (lr) => lr.hexField(9, 'ab'.repeat(5)))))
      .finish()
    const error = errorOf(() => decodeOtlpLogs(payload))
    expect(error.code).toBe('invalid_id')
    expect(error.message).toContain('trace_id has 5 bytes')
  })

  it('reads empty and all-zero ids as none', () => {
    const payload = new ProtoWriter()
      .message(1, (rl) =>
        rl.message(2, (sl) => sl.message(2, (lr) => lr.hexField(9, '00'.repeat(16)).hexField(10, ''))),
      )
      .finish()
    expect(decodeOtlpLogs(payload)[0]).toMatchObject({ traceId: '', spanId: '' })
  })

  it('rejects a body nested deeper than the span decoder allows, and a truncated record', () => {
    const nested = (w: ProtoWriter, depth: number): ProtoWriter =>
      depth === 0
        ? w.stringField(1, 'leaf')
        : w.message(5, (array) => array.message(1, (v) => nested(v, depth - 1)))
    const deep = new ProtoWriter()
      .message(1, (rl) =>
        rl.message(2, (sl) =>
          sl.message(2, (lr) => lr.message(5, (body) => nested(body, MAX_VALUE_DEPTH + 1))),
        ),
      )
      .finish()
    expect(errorOf(() => decodeOtlpLogs(deep)).code).toBe('too_deep')
    const whole = ProtobufLogsSerializer.serializeRequest(recordSdkLogs())!
    expect(errorOf(() => decodeOtlpLogs(whole.subarray(0, whole.length - 3))).code).toBe('truncated')
  })

  it('says a text payload is not OTLP rather than reporting it in protobuf terms', () => {
    const error = errorOf(() => decodeOtlpLogs(Buffer.from('hello, this is not a log request'), 'otlp_proto'))
    expect(error.code).toBe('not_otlp')
  })
})
