import { type Span, StatusCode } from '../model/index.ts'
import { readString } from './read-attribute.ts'

/** What `spanError` gives for a failed span that recorded no message (content capture off). */
const UNRECORDED_ERROR = 'error (message not recorded)'

/**
 * The error message of a failed span (status ERROR): the status message, else the recorded
 * `exception` event, else `error.message` / `error.type`. Undefined when the span did not fail.
 */
export function spanError(span: Span): string | undefined {
  if (span.status.code !== StatusCode.ERROR) return undefined
  if (span.status.message) return span.status.message
  const exception = span.events.find((event) => event.name === 'exception')
  const fromEvent = exception && readString(exception.attributes, 'exception.message')
  return (
    fromEvent ??
    readString(span.attributes, 'error.message') ??
    readString(span.attributes, 'exception.message') ??
    readString(span.attributes, 'error.type') ??
    UNRECORDED_ERROR
  )
}

/**
 * The message of a span's recorded `exception` event. Python instrumentations put the exception's
 * repr and traceback in the status, and the plain message only here.
 */
export function exceptionMessage(span: Span): string | undefined {
  const exception = span.events.find((event) => event.name === 'exception')
  return exception ? readString(exception.attributes, 'exception.message') : undefined
}
