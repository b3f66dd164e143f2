import { createHash } from 'node:crypto'

/**
 * The span id of the score span for one (trace, agent span, scorer): the first 8 bytes of
 * SHA-256(`traceId/agentSpanId/scorerId`) as 16 lowercase hex characters, never all zero (an
 * invalid span id in OTLP). A replay of the same run therefore writes the same span id, and
 * other sinks use it as their idempotency key.
 */
export function scoreSpanId(traceId: string, agentSpanId: string, scorerId: string): string {
  const digest = createHash('sha256')
    .update(`${traceId.toLowerCase()}/${agentSpanId.toLowerCase()}/${scorerId}`)
    .digest()
  for (let offset = 0; offset + 8 <= digest.length; offset += 8) {
    const id = digest.subarray(offset, offset + 8).toString('hex')
    if (id !== '0000000000000000') return id
  }
  return '0000000000000001'
}
