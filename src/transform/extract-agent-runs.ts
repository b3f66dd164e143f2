import type { AgentRun, Span } from '../model/index.ts'
import { isAgentRunSpan } from './agent-spans.ts'
import { type ChatMessage, messageText } from './chat-message.ts'
import type { AgentIdentity, ConventionReader } from './conventions/convention-reader.ts'
import { splitConversation } from './conversation.ts'
import { readerFor } from './detect-convention.ts'
import { buildOutputMessage, type MessageContext, toMastraMessages } from './message-builder.ts'
import { Notes } from './notes.ts'
import { buildRequestContext } from './request-context.ts'
import { collectRunSpans, enclosingAgent } from './run-spans.ts'
import { spanError } from './span-error.ts'
import { buildSpanTree, byStart, compareNanos, nanosToMillis, type SpanTree } from './span-tree.ts'
import { collectToolCalls, type ToolCallRecord } from './tool-calls.ts'

/**
 * Finds every agent run in the spans of one or more traces and reshapes each into Mastra's
 * scorer input/output. One run per agent-run span, nested agents included, earliest first
 * within each trace. Never throws: what cannot be rebuilt is listed in the run's `notes`.
 */
export function extractAgentRuns(spans: readonly Span[]): AgentRun[] {
  const traces = new Map<string, Span[]>()
  for (const span of spans) {
    const list = traces.get(span.traceId)
    if (list) list.push(span)
    else traces.set(span.traceId, [span])
  }
  return [...traces.values()].flatMap(extractTraceRuns)
}

function extractTraceRuns(spans: readonly Span[]): AgentRun[] {
  const tree = buildSpanTree(spans)
  const agents = [...tree.byId.values()].filter(isAgentRunSpan).sort(byStart)
  if (agents.length === 0) return []
  const adopted = adoptOrphans(tree, agents)
  return agents.map((agent) => buildRun(tree, agent, adopted.get(agent.spanId) ?? []))
}

/**
 * Spans whose parent is missing cannot be placed by id; each is given to the innermost agent
 * run whose time window contains its start, so its tool and model calls are not lost.
 */
function adoptOrphans(tree: SpanTree, agents: readonly Span[]): Map<string, Span[]> {
  const adopted = new Map<string, Span[]>()
  for (const orphan of tree.orphans) {
    if (isAgentRunSpan(orphan)) continue
    let owner: Span | undefined
    for (const agent of agents) {
      const inside =
        compareNanos(agent.startTimeUnixNano, orphan.startTimeUnixNano) <= 0 &&
        compareNanos(orphan.startTimeUnixNano, agent.endTimeUnixNano) <= 0
      if (inside && (!owner || compareNanos(owner.startTimeUnixNano, agent.startTimeUnixNano) <= 0))
        owner = agent
    }
    if (!owner) continue
    const list = adopted.get(owner.spanId)
    if (list) list.push(orphan)
    else adopted.set(owner.spanId, [orphan])
  }
  return adopted
}

function buildRun(tree: SpanTree, agent: Span, adopted: readonly Span[]): AgentRun {
  const reader = readerFor(agent)!
  const notes = new Notes()
  if (agent.parentSpanId && !tree.byId.has(agent.parentSpanId)) {
    notes.add(`parent span ${agent.parentSpanId} of the agent span is missing`)
  }
  for (const orphan of adopted) {
    notes.add(
      `span ${orphan.spanId} (${orphan.name}) has a missing parent ${orphan.parentSpanId}; attached by time`,
    )
  }
  if (compareNanos(agent.endTimeUnixNano, agent.startTimeUnixNano) < 0 || agent.endTimeUnixNano === '0') {
    notes.add('agent span has not ended')
  }

  const metadata = reader.metadata(agent, notes)
  const identity = resolveIdentity(reader.identity(agent), metadata)
  const runSpans = collectRunSpans(tree, agent, adopted)
  const { models } = runSpans
  const firstModel = models[0]
  const conversation = splitConversation(
    {
      instructions: reader.instructions(agent, notes),
      agentInput: reader.agentInput(agent, notes),
      firstPrompt: firstModel ? readerFor(firstModel)?.modelInput(firstModel, notes) : undefined,
    },
    notes,
  )
  const toolCalls = collectToolCalls(runSpans, notes)
  const failed = runFailed(agent, toolCalls, models, notes)
  const finalText = pickFinalText(reader, agent, models, failed, notes)

  const requestContext = buildRequestContext(agent, metadata)
  const resourceId = stringOf(metadata.resourceId) ?? stringOf(requestContext?.userId)
  const context: MessageContext = {
    ...(identity.conversationId ? { threadId: identity.conversationId } : {}),
    ...(resourceId ? { resourceId } : {}),
  }
  const startMs = nanosToMillis(agent.startTimeUnixNano)
  const endMs = Math.max(nanosToMillis(agent.endTimeUnixNano), startMs + conversation.input.length)
  const remembered = conversation.remembered
  const parentRun = enclosingAgent(tree, agent)

  const run: AgentRun = {
    traceId: agent.traceId,
    spanId: agent.spanId,
    ...(parentRun ? { parentRunSpanId: parentRun.spanId } : {}),
    ...(identity.agentId ? { agentId: identity.agentId } : {}),
    ...(identity.agentName ? { agentName: identity.agentName } : {}),
    convention: reader.convention,
    status: failed ? 'error' : 'ok',
    ...(identity.conversationId ? { conversationId: identity.conversationId } : {}),
    startTimeUnixNano: agent.startTimeUnixNano,
    endTimeUnixNano: agent.endTimeUnixNano,
    input: {
      inputMessages: toMastraMessages(conversation.input, {
        idPrefix: `${agent.spanId}-input`,
        createdAt: (index) => new Date(startMs + index),
        context,
      }),
      rememberedMessages: toMastraMessages(remembered, {
        idPrefix: `${agent.spanId}-remembered`,
        createdAt: (index) => new Date(startMs - remembered.length + index),
        context,
      }),
      systemMessages: conversation.system.map((content) => ({ role: 'system', content })),
      taggedSystemMessages: {},
    },
    output: [
      buildOutputMessage({
        toolCalls,
        finalText,
        finalStep: runSpans.steps.length > 0 ? runSpans.steps.length - 1 : undefined,
        id: `${agent.spanId}-output-0`,
        createdAt: new Date(endMs),
        context,
      }),
    ],
  }
  if (requestContext) run.requestContext = requestContext
  const list = notes.list()
  if (list.length > 0) run.notes = list
  return run
}

/**
 * Whether the run failed: its agent span has status ERROR, unless that error is only a tool
 * failure the agent loop went on from (a model call started after it). Some span processors
 * (OpenInference's for the AI SDK) copy the first error of a trace onto its root span.
 */
function runFailed(
  agent: Span,
  toolCalls: readonly ToolCallRecord[],
  models: readonly Span[],
  notes: Notes,
): boolean {
  const error = spanError(agent)
  if (error === undefined) return false
  const recovered = toolCalls.find(
    (call) =>
      call.state === 'output-error' &&
      call.errorText === error &&
      models.some((model) => compareNanos(model.startTimeUnixNano, call.timeUnixNano) > 0),
  )
  if (recovered) {
    notes.add(
      `agent span status ERROR (${error}) comes from tool call ${recovered.toolCallId}, which the run went on from`,
    )
    return false
  }
  notes.add(`agent run failed: ${error}`)
  return true
}

/** The last assistant text of a list of messages, if any message has text. */
function lastText(messages: readonly ChatMessage[] | undefined): string | undefined {
  if (!messages) return undefined
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!
    if (message.role !== 'assistant') continue
    const text = messageText(message)
    if (text.length > 0) return text
  }
  return undefined
}

/**
 * The final answer: the agent span's recorded output, else the text of the last model call.
 * A failed run with no recorded output has no final text.
 */
function pickFinalText(
  reader: ConventionReader,
  agent: Span,
  models: readonly Span[],
  failed: boolean,
  notes: Notes,
): string {
  const output = reader.agentOutput(agent, notes)
  if (output) return lastText(output) ?? ''
  if (failed) return ''
  const last = [...models].sort((a, b) => compareNanos(a.endTimeUnixNano, b.endTimeUnixNano)).pop()
  const fromModel = last ? readerFor(last)?.modelOutput(last, notes) : undefined
  if (fromModel) return lastText(fromModel) ?? ''
  notes.add('final text not recorded (content capture off?)')
  return ''
}

/**
 * Fills what the convention does not record: the conversation id from application metadata
 * (`conversationId`, `threadId`, `chatId`), and the agent id from the agent name (AI SDK
 * `functionId`, OpenInference `agent.name`) when there is no separate id.
 */
function resolveIdentity(identity: AgentIdentity, metadata: Record<string, unknown>): AgentIdentity {
  const conversationId =
    identity.conversationId ??
    stringOf(metadata.conversationId) ??
    stringOf(metadata.threadId) ??
    stringOf(metadata.chatId)
  const agentId = identity.agentId ?? identity.agentName
  return {
    ...identity,
    ...(agentId ? { agentId } : {}),
    ...(conversationId ? { conversationId } : {}),
  }
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined
}
