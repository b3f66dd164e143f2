/**
 * Attributes of score spans whose values are doubles by convention (`gen_ai.evaluation.score.value`
 * is a double in the GenAI semantic conventions). JavaScript has one number type and the OTel JS
 * transformer writes every whole number as an `intValue`, so a score of 1 would reach typed
 * backends as an int and a score of 0.5 as a double: two types for one attribute.
 */
export const doubleAttributeKeys: ReadonlySet<string> = new Set([
  'gen_ai.evaluation.score.value',
  'tracescore.sampling.rate',
])

interface JsonKeyValue {
  key: string
  value?: { intValue?: number | string; doubleValue?: number }
}
interface JsonSpan {
  attributes?: JsonKeyValue[]
  events?: { attributes?: JsonKeyValue[] }[]
}

/**
 * An OTLP/JSON request body with every `{ intValue }` of those keys (span and event attributes)
 * as `{ doubleValue }`. (OTLP/protobuf bodies are written with doubles in the first place, by
 * `serializeScoreSpanRequest`.)
 */
export function withDoubleScoresJson(request: Uint8Array): Uint8Array {
  const body = JSON.parse(new TextDecoder().decode(request)) as {
    resourceSpans?: { scopeSpans?: { spans?: JsonSpan[] }[] }[]
  }
  const fix = (attributes: JsonKeyValue[] = []) => {
    for (const kv of attributes) {
      if (doubleAttributeKeys.has(kv.key) && kv.value?.intValue !== undefined) {
        kv.value = { doubleValue: Number(kv.value.intValue) }
      }
    }
  }
  for (const rs of body.resourceSpans ?? []) {
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        fix(s.attributes)
        for (const e of s.events ?? []) fix(e.attributes)
      }
    }
  }
  return new TextEncoder().encode(JSON.stringify(body))
}
