import type { Attributes, AttributeValue, Span } from '../model/index.ts'
import { undecodedAttributesBytes } from './decode/lazy-attributes.ts'

const valueBytes = (value: AttributeValue): number => {
  if (typeof value === 'string') return value.length + 2
  if (value === null || typeof value !== 'object') return 9
  if (value instanceof Uint8Array) return value.byteLength + 2
  if (Array.isArray(value)) {
    let n = 2
    for (const item of value) n += valueBytes(item)
    return n
  }
  return attributesBytes(value)
}

const attributesBytes = (attributes: Attributes): number => {
  // Not decoded yet: what they are kept as (their encoded bytes), without decoding them to measure.
  const undecoded = undecodedAttributesBytes(attributes)
  if (undecoded !== undefined) return undecoded
  let n = 0
  for (const key in attributes) n += key.length + 4 + valueBytes(attributes[key]!)
  return n
}

/**
 * Approximate encoded size of a span (about what its OTLP protobuf takes), for the assembler's
 * byte cap when the record's payload size is not known. Resource attributes are not counted:
 * batches share them between spans. Lazily decoded attributes count as their encoded bytes and
 * stay undecoded.
 */
export function estimateSpanBytes(span: Span): number {
  let n = 80 + span.name.length + attributesBytes(span.attributes)
  for (const event of span.events) n += 20 + event.name.length + attributesBytes(event.attributes)
  for (const link of span.links) n += 40 + attributesBytes(link.attributes)
  if (span.status.message !== undefined) n += span.status.message.length
  return n
}
