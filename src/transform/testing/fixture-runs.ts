/**
 * Checks of rebuilt runs against a fixture's ground truth, shared by the fixture test (every cell
 * must be exact) and the generalisation table (how many cells stay exact with the framework
 * readers off).
 */
import { existsSync, readFileSync } from 'node:fs'
import { expect } from 'vitest'
import type { GroundTruth, GroundTruthRun, TruthMessage } from '../../../test/fixtures/index.ts'
import type { AgentRun, MastraDBMessage } from '../../model/index.ts'
import { outputSteps } from './output-steps.ts'

function textOf(message: MastraDBMessage): string {
  if (typeof message.content.content === 'string') return message.content.content
  return message.content.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
}

function messages(list: MastraDBMessage[]): TruthMessage[] {
  return list.map((message) => ({ role: message.role as TruthMessage['role'], text: textOf(message) }))
}

/** The tool calls of a run in the ground truth's shape, read from the output's tool parts. */
export function toolCalls(run: AgentRun) {
  return run.output.flatMap((message) =>
    message.content.parts.flatMap((part) => {
      if (part.type !== 'tool-invocation') return []
      const call = part.toolInvocation
      return [
        {
          id: call.toolCallId,
          name: call.toolName,
          args: call.args,
          ...(call.state === 'result' ? { result: call.result } : {}),
          ...(call.state === 'output-error' ? { error: call.errorText } : {}),
        },
      ]
    }),
  )
}

export function requestsRecorded(protoPath: string): boolean {
  return existsSync(protoPath.replace(/\.pb$/, '.requests.json'))
}

/** What the scripted model server was sent as each tool call's output (Python fixtures), by call id. */
export function sentToolOutputs(requestsPath: string): Map<string, unknown> {
  const sent = new Map<string, unknown>()
  if (!existsSync(requestsPath)) return sent
  const requests = JSON.parse(readFileSync(requestsPath, 'utf8')) as { body: Record<string, unknown> }[]
  for (const { body } of requests) {
    const items = [body.messages, body.input].flatMap((list) => (Array.isArray(list) ? list : []))
    for (const item of items as Record<string, unknown>[]) {
      const id = item.tool_call_id ?? item.call_id
      const output =
        item.role === 'tool' ? item.content : item.type === 'function_call_output' ? item.output : undefined
      if (typeof id === 'string' && output !== undefined) sent.set(id, output)
    }
  }
  return sent
}

/** Whether a run was rebuilt without its agent span (the library never exported it). */
export function lostAgentSpan(run: AgentRun | undefined): boolean {
  return run?.notes?.some((note) => note.startsWith(`agent span ${run.spanId} is missing`)) ?? false
}

export function expectRunMatches(
  run: AgentRun,
  truth: GroundTruthRun,
  runs: AgentRun[],
  truths: GroundTruthRun[],
): void {
  if (!lostAgentSpan(run)) expect(run.agentName).toBe(truth.agentName)
  if (truth.agentId) expect(run.agentId).toBe(truth.agentId)
  expect(run.status).toBe(truth.status)
  if (truth.parentAgentName || truth.parentRunIndex !== undefined) {
    // The caller by name, or by position where the producer's agents have no names (Spring AI).
    const parentIndex =
      truth.parentRunIndex ?? truths.findIndex((candidate) => candidate.agentName === truth.parentAgentName)
    expect(run.parentRunSpanId).toBe(runs[parentIndex]?.spanId)
    // A sub-agent run inherits its caller's thread (Mastra copies the metadata to child spans), or
    // one its framework made up for it when the program gave none (Pydantic AI): its own alone.
    const parentTruth = truths[parentIndex]
    const madeUp =
      truth.conversationId === undefined &&
      run.conversationId !== undefined &&
      runs.every((other) => other === run || other.conversationId !== run.conversationId)
    if (!madeUp) expect([truth.conversationId, parentTruth?.conversationId]).toContain(run.conversationId)
  } else {
    expect(run.parentRunSpanId).toBeUndefined()
    expect(run.conversationId).toBe(truth.conversationId)
  }
  const notRecorded = new Set(truth.notRecorded)
  if (notRecorded.has('instructions')) {
    // What no span holds is left empty, never guessed.
    expect(run.input.systemMessages).toEqual([])
  } else if (truth.instructions !== undefined && run.input.systemMessages.length === 0) {
    // Only model-call prompts carry instructions in some conventions; a run that failed before
    // any model call was recorded cannot know them, and says so.
    expect(run.status).toBe('error')
    expect(run.notes).toContain('system instructions not recorded (no model call prompt)')
  } else if (truth.instructions !== undefined) {
    expect(run.input.systemMessages).toEqual([{ role: 'system', content: truth.instructions }])
  }
  if (notRecorded.has('input')) {
    expect(run.input.inputMessages).toEqual([])
    // Or, where a span holds it only flattened into one text, a note that says so.
    if (run.inseparable?.includes('input'))
      expect(run.notes?.some((note) => note.startsWith('input') && note.includes('recorded only as'))).toBe(
        true,
      )
    else expect(run.notes).toContain('input messages not recorded (content capture off?)')
  } else if (truth.input.length > 0 && run.input.inputMessages.length === 0) {
    // A failed model call may record no prompt (OpenAI Agents SDK): then no span has the input.
    expect(run.status).toBe('error')
    expect(run.notes).toContain('input messages not recorded (content capture off?)')
  } else expect(messages(run.input.inputMessages)).toEqual(truth.input)
  expect(messages(run.input.rememberedMessages)).toEqual(notRecorded.has('history') ? [] : truth.history)
  expect(toolCalls(run)).toEqual(truth.toolCalls)
  expect(run.output).toHaveLength(1)
  expect(run.output[0]!.role).toBe('assistant')
  const textRecorded = !notRecorded.has('text')
  expect(run.output[0]!.content.content).toBe(textRecorded ? truth.finalText : '')
  if (truth.steps) {
    // Each model turn in order: its text (the final answer for the last) and its tool calls.
    // Without recorded text, a turn that only wrote text leaves nothing in the output.
    const visible = truth.steps.filter((step) => textRecorded || step.toolCallIds.length > 0)
    expect(outputSteps(run)).toEqual(
      visible.map((step) => ({
        texts: step.text && textRecorded ? [step.text] : [],
        toolCallIds: step.toolCallIds,
      })),
    )
  }
  if (truth.resourceId && !truth.parentAgentName) {
    for (const message of [...run.input.inputMessages, ...run.output])
      expect(message.resourceId).toBe(truth.resourceId)
  }
}

/**
 * Whether every run of a trace is rebuilt as its truth says: one run per agent turn, in start
 * order, each matching its truth run (the fixture test's checks, as one yes or no).
 */
export function traceExact(runs: AgentRun[], truth: GroundTruth): boolean {
  try {
    expect(runs.map((run) => (lostAgentSpan(run) ? undefined : run.agentName))).toEqual(
      truth.runs.map((run, index) => (lostAgentSpan(runs[index]) ? undefined : run.agentName)),
    )
    truth.runs.forEach((run, index) => {
      expectRunMatches(runs[index]!, run, runs, truth.runs)
    })
    return true
  } catch {
    return false
  }
}
