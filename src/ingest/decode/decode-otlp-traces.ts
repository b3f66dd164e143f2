import type { Span } from '../../model/span.ts'
import { OtlpDecodeError } from './decode-error.ts'
import { parseOtlpJsonText, visitOtlpJsonRequest } from './decode-json.ts'
import { visitOtlpProtoSpans } from './decode-proto.ts'
import { detectOtlpEncoding, type OtlpEncodingOption } from './otlp-encoding.ts'
import type { OtlpSpanVisitor } from './span-visitor.ts'

const utf8 = new TextDecoder('utf-8')

/**
 * Decodes one OTLP `ExportTraceServiceRequest` (a Kafka record value) and hands each span to
 * `visit`, with the encoded size of the span, in payload order. The encoding is detected when
 * omitted (see {@link detectOtlpEncoding}). Throws {@link OtlpDecodeError} on malformed input;
 * protobuf is decoded as it streams, so spans before the bad byte may already have been visited:
 * use {@link decodeOtlpTraces} when a bad record must yield no spans at all.
 */
export function visitOtlpSpans(
  payload: Uint8Array | string,
  visit: OtlpSpanVisitor,
  encoding: OtlpEncodingOption = 'auto',
): void {
  visitOtlpPayload(
    payload,
    encoding,
    (request, size) => visitOtlpJsonRequest(request, visit, size),
    (bytes) => visitOtlpProtoSpans(bytes, visit),
  )
}

/** How one signal's request is read: parsed OTLP/JSON (with the payload size), or protobuf bytes. */
type ReadJson = (request: unknown, payloadSize: number) => void
type ReadProto = (payload: Uint8Array) => void

/**
 * Reads one OTLP export request of any signal with `readJson` or `readProto`, by its encoding
 * (detected when `auto`): the spans' and the logs' decoders share this dispatch.
 */
export function visitOtlpPayload(
  payload: Uint8Array | string,
  encoding: OtlpEncodingOption,
  readJson: ReadJson,
  readProto: ReadProto,
): void {
  const chosen = encoding === 'auto' ? detectOtlpEncoding(payload) : encoding
  if (chosen === 'otlp_json') {
    const text = typeof payload === 'string' ? payload : decodeText(payload)
    if (encoding === 'auto' && typeof payload !== 'string' && payload[0] === 0x0a) {
      // "\n{" also starts a protobuf request whose first resource message is 123 bytes long.
      visitAmbiguous(payload, text, readJson, readProto)
      return
    }
    readJson(parseOtlpJsonText(text), typeof payload === 'string' ? text.length : payload.length)
  } else if (chosen === 'otlp_proto') {
    if (typeof payload === 'string') {
      throw new OtlpDecodeError('invalid_field', 'otlp_proto payload must be bytes, got a string')
    }
    readProto(payload)
  } else {
    throw new OtlpDecodeError('invalid_field', `unknown encoding ${String(chosen)}`)
  }
}

function decodeText(payload: Uint8Array): string {
  try {
    return utf8.decode(payload)
  } catch (cause) {
    throw new OtlpDecodeError('too_large', `JSON payload of ${payload.length} bytes`, { cause })
  }
}

function visitAmbiguous(payload: Uint8Array, text: string, readJson: ReadJson, readProto: ReadProto): void {
  let request: unknown
  try {
    request = parseOtlpJsonText(text)
  } catch (jsonError) {
    try {
      readProto(payload)
      return
    } catch {
      throw jsonError
    }
  }
  readJson(request, payload.length)
}

/**
 * Decodes one OTLP `ExportTraceServiceRequest` (protobuf bytes or OTLP/JSON) into normalized spans,
 * in payload order. The encoding is detected when omitted or `auto`: a string, or bytes starting with `{`
 * after whitespace, is JSON; anything else protobuf. Throws {@link OtlpDecodeError} on malformed input.
 * The spans of one `ResourceSpans` share one `resource` object (protobuf: so do all spans whose
 * resource has the same bytes, across payloads), and those of one `ScopeSpans` one `scope`; from
 * protobuf, spans without events, links or status share frozen empty ones: treat them as read-only.
 */
export function decodeOtlpTraces(payload: Uint8Array | string, encoding?: OtlpEncodingOption): Span[] {
  const spans: Span[] = []
  visitOtlpSpans(
    payload,
    (span) => {
      spans.push(span)
    },
    encoding,
  )
  return spans
}
