import type { Span } from '../../model/span.ts'
import { OtlpDecodeError } from './decode-error.ts'
import { parseOtlpJsonText, visitOtlpJsonRequest } from './decode-json.ts'

/**
 * Decodes the OpenTelemetry Collector file exporter's JSON lines (one OTLP/JSON
 * `ExportTraceServiceRequest` per line; blank lines ignored) into normalized spans, in file order.
 * Throws {@link OtlpDecodeError} naming the 1-based line of the first bad request.
 */
export function decodeOtlpJsonLines(text: string): Span[] {
  const spans: Span[] = []
  const visit = (span: Span): void => {
    spans.push(span)
  }
  let line = 0
  let start = 0
  while (start <= text.length) {
    let end = text.indexOf('\n', start)
    if (end === -1) end = text.length
    line++
    const content = text.slice(start, end)
    if (content.trim() !== '') {
      try {
        visitOtlpJsonRequest(parseOtlpJsonText(content), visit, content.length)
      } catch (error) {
        if (!(error instanceof OtlpDecodeError)) throw error
        // Offsets become offsets in the whole text; the message already says where in the line.
        throw new OtlpDecodeError(error.code, `line ${line}: ${error.message}`, {
          offset: start + (error.offset ?? 0),
          ...(error.path !== undefined ? { path: error.path } : {}),
          cause: error,
        })
      }
    }
    start = end + 1
  }
  return spans
}
