import type { Span } from '../../model/index.ts'
import type { ChatMessage } from '../chat-message.ts'
import { isRecord, readString } from '../read-attribute.ts'
import { type SpanTree, walkBelow } from '../span-tree.ts'
import { type ConventionReader, changedCall, type SpanRole } from './convention-reader.ts'
import { ioValue, kind, openInferenceReader, roleOfKind } from './openinference.ts'

/** The instrumentation scope of `openinference-instrumentation-crewai`. */
const SCOPE = 'openinference.instrumentation.crewai'

/** CrewAI's tools that hand a task to a coworker agent, which runs inside the tool. */
const DELEGATION_TOOLS = new Set(['Delegate work to coworker', 'Ask question to coworker'])

const isDelegation = (span: Span) =>
  kind(span) === 'TOOL' && DELEGATION_TOOLS.has(readString(span.attributes, 'tool.name') ?? '')

/**
 * CrewAI traced by OpenInference (its model calls come from the OpenAI instrumentation). A
 * `Crew_….kickoff` CHAIN wraps one `<role>._execute_core` AGENT span per task. The agent is named
 * by its role; its instructions are its backstory, which CrewAI's prompt wraps as `You are
 * <role>. <backstory>\nYour personal goal is: …`, and its input is the task description, wrapped
 * as `\nCurrent Task: <description>\n\nThis is the expected criteria…`. A coworker a delegation
 * tool hands work to runs inside that tool span without an agent span: the tool span heads its run.
 * The model knows each tool by its sanitized name.
 */
export const crewAiReader: ConventionReader = {
  ...openInferenceReader,
  matches: (span) => span.scope.name === SCOPE && openInferenceReader.matches(span),
  role: (span): SpanRole => roleOfKind(span, 'other'),
  confirmRun: undefined,
  headsRun: (span, tree) => isDelegation(span) && runsModelInside(span, tree),
  identity(span) {
    const input = ioValue(span, 'input', silent)
    const agent = isRecord(input) && isRecord(input.agent) ? input.agent : undefined
    const name = isDelegation(span)
      ? isRecord(input) && input.coworker
      : (readString(span.attributes, 'graph.node.id') ?? agent?.role)
    return {
      agentName: typeof name === 'string' ? name : undefined,
      conversationId: readString(span.attributes, 'session.id'),
    }
  },
  instructions(span) {
    const input = ioValue(span, 'input', silent)
    const backstory = isRecord(input) && isRecord(input.agent) ? input.agent.backstory : undefined
    return typeof backstory === 'string' && backstory.length > 0 ? [backstory] : undefined
  },
  agentInput(span, notes) {
    const input = ioValue(span, 'input', notes)
    const output = ioValue(span, 'output', notes)
    const task = isDelegation(span) ? isRecord(input) && input.task : isRecord(output) && output.description
    return typeof task === 'string' ? [{ role: 'user', parts: [{ type: 'text', text: task }] }] : undefined
  },
  agentOutput(span, notes) {
    const output = ioValue(span, 'output', notes)
    const text = isRecord(output) ? output.raw : output
    return typeof text === 'string' ? [{ role: 'assistant', parts: [{ type: 'text', text }] }] : undefined
  },
  unwrapPrompt: (messages) => messages.map(programMessage),
  toolCall(span, notes) {
    const call = openInferenceReader.toolCall(span, notes)
    // The model knows a tool by its sanitized name ("Delegate work to coworker" → delegate_work_to_coworker).
    return call.toolName
      ? changedCall(call, { toolName: call.toolName.toLowerCase().replace(/[^a-z0-9_-]/g, '_') })
      : call
  },
}

const silent = { add: () => {} } as unknown as Parameters<typeof ioValue>[2]

/** Whether a model is called under a span without another agent span in between. */
function runsModelInside(span: Span, tree: SpanTree): boolean {
  return walkBelow(tree, span, (next) => {
    const value = kind(next)
    return value === 'LLM' ? 'stop' : value === 'AGENT' ? 'skip' : undefined
  })
}

/** A prompt message without CrewAI's wrapping of the backstory or the task. */
function programMessage(message: ChatMessage): ChatMessage {
  const unwrap = message.role === 'system' ? backstoryIn : message.role === 'user' ? taskIn : undefined
  if (!unwrap) return message
  return {
    ...message,
    parts: message.parts.map((part) => (part.type === 'text' ? { ...part, text: unwrap(part.text) } : part)),
  }
}

/** `You are <role>. <backstory>\nYour personal goal is: <goal>` → the backstory (by position, no regex). */
function backstoryIn(text: string): string {
  const goal = text.lastIndexOf('\nYour personal goal is: ')
  const start = text.startsWith('You are ') ? text.indexOf('. ') : -1
  return start >= 0 && goal > start ? text.slice(start + 2, goal) : text
}

/** `\nCurrent Task: <description>\n\nThis is the expected criteria…` → the description. */
function taskIn(text: string): string {
  const start = text.indexOf('Current Task: ')
  const end = text.indexOf('\n\nThis is the expected criteria for your final answer:', start)
  return start >= 0 && end > start && text.slice(0, start).trim() === ''
    ? text.slice(start + 'Current Task: '.length, end)
    : text
}
