import { describe, expect, it } from 'vitest'
import { decodeOtlpTraces } from '../decode/index.ts'
import { encodeOtlpProto, generateAgentTraffic } from '../testing/agent-traffic.ts'
import { encodeSpansAsOtlpJson } from './encode-otlp-json.ts'

describe('encodeSpansAsOtlpJson', () => {
  it('round-trips decoded spans through OTLP/JSON unchanged', () => {
    const traffic = generateAgentTraffic({ runs: 3, plainTraces: 1 })
    const spans = decodeOtlpTraces(encodeOtlpProto(traffic.spans), 'otlp_proto')
    const again = decodeOtlpTraces(encodeSpansAsOtlpJson(spans), 'otlp_json')
    expect(again).toEqual(spans)
  })

  it('keeps every attribute value type the span model has', () => {
    const resource = { 'service.name': 'svc' }
    const scope = { name: 's', version: '1' }
    const span = {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      name: 'x',
      kind: 1 as const,
      startTimeUnixNano: '1796029200000000001',
      endTimeUnixNano: '1796029200000000002',
      attributes: {
        s: 'text',
        b: true,
        i: 42,
        d: 0.5,
        bytes: new Uint8Array([1, 2, 255]),
        arr: ['a', 1],
        kv: { nested: 'yes' },
      },
      events: [{ name: 'e', timeUnixNano: '1796029200000000001', attributes: { k: 'v' } }],
      links: [{ traceId: '0af7651916cd43dd8448eb211c80319d', spanId: 'b7ad6b7169203332', attributes: {} }],
      status: { code: 2 as const, message: 'boom' },
      resource,
      scope,
    }
    const [decoded] = decodeOtlpTraces(encodeSpansAsOtlpJson([span]), 'otlp_json')
    expect(decoded).toMatchObject({ ...span, attributes: { ...span.attributes, bytes: expect.anything() } })
    expect(Array.from(decoded!.attributes.bytes as Uint8Array)).toEqual([1, 2, 255])
  })
})
