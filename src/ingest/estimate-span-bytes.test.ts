import { describe, expect, it } from 'vitest'
import { decodeOtlpTraces } from './decode/index.ts'
import { estimateSpanBytes } from './estimate-span-bytes.ts'
import { encodeOtlpProto, generateAgentTraffic } from './testing/agent-traffic.ts'

describe('estimateSpanBytes', () => {
  it('stays within a factor of two of the encoded size of realistic spans', () => {
    const traffic = generateAgentTraffic({ runs: 20, contentWords: 100 })
    const payload = encodeOtlpProto(traffic.spans)
    const spans = decodeOtlpTraces(payload, 'otlp_proto')
    const estimate = spans.reduce((n, s) => n + estimateSpanBytes(s), 0)
    expect(estimate).toBeGreaterThan(payload.length / 2)
    expect(estimate).toBeLessThan(payload.length * 2)
  })

  it('grows with attribute, event and link content', () => {
    const [span] = decodeOtlpTraces(
      encodeOtlpProto(generateAgentTraffic({ runs: 1 }).spans.slice(0, 1)),
      'otlp_proto',
    )
    const base = estimateSpanBytes(span!)
    const bigger = {
      ...span!,
      attributes: {
        ...span!.attributes,
        extra: 'x'.repeat(1000),
        nested: { list: ['a', 'b'], bytes: new Uint8Array(50) },
      },
      events: [{ name: 'e', timeUnixNano: '1', attributes: { k: 'v'.repeat(100) } }],
    }
    expect(estimateSpanBytes(bigger)).toBeGreaterThan(base + 1150)
  })
})
