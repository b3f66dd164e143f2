/**
 * The final text where the agent span's output and the last model call's answer disagree: an
 * output that only holds what the agent was configured or asked with (its instructions, the user's
 * input) is not its answer.
 */
import { describe, expect, it } from 'vitest'
import { extractAgentRuns } from './index.ts'
import { span } from './testing/span-builder.ts'

const genaiText = (role: string, text: string) => ({ role, parts: [{ type: 'text', content: text }] })

function run(agentOutput: object[]) {
  return extractAgentRuns([
    span({
      id: 'a',
      name: 'invoke_agent support',
      end: 100,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'support',
        'gen_ai.output.messages': JSON.stringify(agentOutput),
      },
    }),
    span({
      id: 'c',
      parent: 'a',
      name: 'chat',
      start: 1,
      end: 9,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': JSON.stringify([
          genaiText('system', 'You answer opening-hours questions.'),
          genaiText('user', 'When are you open?'),
        ]),
        'gen_ai.output.messages': JSON.stringify([genaiText('assistant', 'Monday to Friday, 9 to 18.')]),
      },
    }),
  ])[0]!
}

describe('the final text', () => {
  it("is the last model answer when the agent span's output only repeats its instructions or its input", () => {
    for (const output of [
      [genaiText('system', 'You answer opening-hours questions.')],
      [genaiText('assistant', 'You answer opening-hours questions.')],
      [genaiText('user', 'When are you open?')],
    ]) {
      const result = run(output)
      expect(result.output[0]!.content.content, JSON.stringify(output)).toBe('Monday to Friday, 9 to 18.')
      expect(result.notes, JSON.stringify(output)).toContainEqual(expect.stringContaining('final text'))
    }
  })

  it("is the agent span's output when it is an answer of its own", () => {
    const result = run([genaiText('assistant', 'We are open Monday to Friday.')])
    expect(result.output[0]!.content.content).toBe('We are open Monday to Friday.')
  })
})
