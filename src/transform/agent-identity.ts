import type { AgentIdentity } from './conventions/convention-reader.ts'
import { agentNameInSpanName } from './conventions/generic.ts'

/**
 * Fills what the convention does not record: the conversation id from application metadata
 * (`conversationId`, `threadId`, `chatId`), and the agent id from the agent name (AI SDK
 * `functionId`, OpenInference `agent.name`) when there is no separate id.
 */
export function resolveIdentity(identity: AgentIdentity, metadata: Record<string, unknown>): AgentIdentity {
  const conversationId =
    identity.conversationId ??
    stringOf(metadata.conversationId) ??
    stringOf(metadata.threadId) ??
    stringOf(metadata.chatId)
  // A span named after its agent (`support_agent.run`) names it without the method.
  const agentName =
    identity.agentName ?? (identity.spanName && (agentNameInSpanName(identity.spanName) ?? identity.spanName))
  const agentId = identity.agentId ?? agentName
  // One literal, no spreads: made for every run (README, "Cost and hostile input").
  return { agentId, agentName, conversationId }
}

/** A non-empty string, or undefined. */
export function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined
}
