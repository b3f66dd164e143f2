import { describe, expect, it } from 'vitest'
import { extractAgentRuns } from '../index.ts'
import { sid, span } from '../testing/span-builder.ts'
import { toolResult } from '../testing/tool-invocations.ts'

describe('extractAgentRuns on Mastra spans', () => {
  it('reads the pre-1.0 exporter layout (generic input/output, gen_ai.tool.input|output, agent.id)', () => {
    // Shapes as @mastra/core 0.x ai-tracing exported them (reference §7 "History").
    const runs = extractAgentRuns([
      span({
        id: 'a',
        name: 'agent.weather',
        end: 100,
        attributes: {
          'mastra.span.type': 'agent_run',
          'agent.id': 'weather',
          threadId: 't-1',
          input: 'Weather in Oslo?',
          output: JSON.stringify({ text: 'Cold.' }),
        },
      }),
      span({
        id: 'g',
        parent: 'a',
        name: 'chat gpt-4o',
        start: 1,
        end: 90,
        attributes: {
          'mastra.span.type': 'llm_generation',
          input: JSON.stringify({
            messages: [
              { role: 'system', content: 'Be brief.' },
              { role: 'user', content: 'Weather in Oslo?' },
            ],
          }),
        },
      }),
      span({
        id: 't',
        parent: 'g',
        name: 'tool.execute weather',
        start: 10,
        end: 20,
        attributes: {
          'mastra.span.type': 'tool_call',
          'gen_ai.tool.input': JSON.stringify({ city: 'Oslo' }),
          'gen_ai.tool.output': JSON.stringify({ tempC: -3 }),
        },
      }),
    ])
    expect(runs).toHaveLength(1)
    const run = runs[0]!
    expect(run).toMatchObject({ convention: 'mastra', agentId: 'weather', conversationId: 't-1' })
    expect(run.input.systemMessages).toEqual([{ role: 'system', content: 'Be brief.' }])
    expect(run.input.inputMessages.map((m) => m.content.content)).toEqual(['Weather in Oslo?'])
    // No call id recorded: the tool span id stands in.
    expect(run.output[0]!.content.toolInvocations).toEqual([
      toolResult(sid('t'), 'weather', { city: 'Oslo' }, { tempC: -3 }),
    ])
    expect(run.output[0]!.content.content).toBe('Cold.')
  })

  it('takes a caller input given as a message list or a list of strings', () => {
    const run = (input: unknown) =>
      extractAgentRuns([
        span({
          id: 'a',
          end: 10,
          attributes: { 'mastra.span.type': 'agent_run', 'mastra.agent_run.input': JSON.stringify(input) },
        }),
      ])[0]!
    expect(run([{ role: 'user', content: 'Hi' }]).input.inputMessages.map((m) => m.content.content)).toEqual([
      'Hi',
    ])
    expect(run(['a', 'b']).input.inputMessages.map((m) => m.content.content)).toEqual(['a', 'b'])
  })
})
