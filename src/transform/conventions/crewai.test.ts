import { describe, expect, it } from 'vitest'
import type { Span } from '../../model/index.ts'
import { extractAgentRuns } from '../index.ts'
import { toolInvocations } from '../testing/output-steps.ts'
import { sid, span } from '../testing/span-builder.ts'

const crew = { name: 'openinference.instrumentation.crewai' }
const openai = { name: 'openinference.instrumentation.openai' }
const oi = (scope: { name: string }, spec: Parameters<typeof span>[0] & { kind: string }): Span => {
  const { kind, attributes = {}, ...rest } = spec
  return { ...span({ ...rest, attributes: { 'openinference.span.kind': kind, ...attributes } }), scope }
}

/** A ChatCompletion span of the OpenAI instrumentation with CrewAI's prompt. */
function chat(
  id: string,
  parent: string,
  start: number,
  role: string,
  backstory: string,
  task: string,
  output: object,
): Span {
  return oi(openai, {
    id,
    parent,
    start,
    end: start + 1,
    kind: 'LLM',
    attributes: {
      'llm.input_messages.0.message.role': 'system',
      'llm.input_messages.0.message.content': `You are ${role}. ${backstory}\nYour personal goal is: Help.`,
      'llm.input_messages.1.message.role': 'user',
      'llm.input_messages.1.message.content': `\nCurrent Task: ${task}\n\nThis is the expected criteria for your final answer: A short answer.\nyou MUST return the actual complete content as the final answer, not a summary.`,
      'output.value': JSON.stringify({ choices: [{ message: { role: 'assistant', ...output } }] }),
    },
  })
}

describe('CrewAI (OpenInference)', () => {
  const spans = [
    oi(crew, { id: 'kick', name: 'Crew_1.kickoff', kind: 'CHAIN', end: 100 }),
    oi(crew, {
      id: 'sup',
      parent: 'kick',
      name: 'Supervisor._execute_core',
      kind: 'AGENT',
      start: 1,
      end: 99,
      attributes: {
        'graph.node.id': 'Supervisor',
        'input.value': JSON.stringify({ agent: { role: 'Supervisor', backstory: 'You coordinate.' } }),
        'output.value': JSON.stringify({ description: 'Return policy?', raw: 'Within 30 days.' }),
      },
    }),
    chat('m1', 'sup', 2, 'Supervisor', 'You coordinate.', 'Return policy?', {
      tool_calls: [
        {
          id: 'call_d',
          function: {
            name: 'delegate_work_to_coworker',
            arguments: '{"task": "Policy?", "coworker": "Researcher"}',
          },
        },
      ],
    }),
    oi(crew, {
      id: 'del',
      parent: 'sup',
      name: 'Delegate work to coworker.run',
      kind: 'TOOL',
      start: 4,
      end: 20,
      attributes: {
        'tool.name': 'Delegate work to coworker',
        'input.value': '{"task": "Policy?", "coworker": "Researcher"}',
        'output.value': '30 days.',
      },
    }),
    chat('c1', 'del', 5, 'Researcher', 'You research.', 'Policy?', { content: '30 days.' }),
    chat('m2', 'sup', 21, 'Supervisor', 'You coordinate.', 'Return policy?', { content: 'Within 30 days.' }),
  ]

  it('a crew kickoff wraps one run per agent, named by role, with its backstory and task', () => {
    const [run] = extractAgentRuns(spans)
    expect(run).toMatchObject({ spanId: sid('sup'), agentName: 'Supervisor' })
    expect(run!.input.systemMessages).toEqual([{ role: 'system', content: 'You coordinate.' }])
    expect(run!.input.inputMessages.map((m) => m.content.content)).toEqual(['Return policy?'])
    expect(run!.output[0]!.content.content).toBe('Within 30 days.')
  })

  it('a delegated coworker, which has no agent span, is a run headed by the delegation tool span', () => {
    const runs = extractAgentRuns(spans)
    expect(runs.map((run) => [run.agentName, run.parentRunSpanId])).toEqual([
      ['Supervisor', undefined],
      ['Researcher', sid('sup')],
    ])
    expect(toolInvocations(runs[0]!).map((call) => [call.toolCallId, call.toolName])).toEqual([
      ['call_d', 'delegate_work_to_coworker'],
    ])
    // Its instructions and input are unwrapped from CrewAI's prompt.
    expect(runs[1]!.input.systemMessages).toEqual([{ role: 'system', content: 'You research.' }])
    expect(runs[1]!.input.inputMessages.map((m) => m.content.content)).toEqual(['Policy?'])
    expect(runs[1]!.output[0]!.content.content).toBe('30 days.')
  })
})
