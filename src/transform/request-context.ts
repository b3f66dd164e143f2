import type { Span } from '../model/index.ts'
import { readString, setOwn } from './read-attribute.ts'

const USER_KEYS = ['user.id', 'enduser.id', 'langfuse.user.id']
const SESSION_KEYS = ['session.id', 'langfuse.session.id']

function firstString(span: Span, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = readString(span.attributes, key)
    if (value) return value
  }
  return undefined
}

/**
 * The request context of a run: the application metadata recorded on its agent span (empty
 * values left out), plus
 * `serviceName` (resource `service.name`), `serviceVersion`, `userId` and `sessionId` when known.
 * Undefined when nothing is known.
 */
export function buildRequestContext(
  span: Span,
  metadata: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const context: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(metadata)) {
    if (value !== undefined && value !== null && value !== '') setOwn(context, key, value)
  }
  const serviceName = readString(span.resource, 'service.name')
  const serviceVersion = readString(span.resource, 'service.version')
  const userId = firstString(span, USER_KEYS)
  const sessionId = firstString(span, SESSION_KEYS)
  if (serviceName) context.serviceName = serviceName
  if (serviceVersion) context.serviceVersion = serviceVersion
  if (userId) context.userId = userId
  if (sessionId) context.sessionId = sessionId
  return Object.keys(context).length > 0 ? context : undefined
}
