import { describe, expect, it } from 'vitest'
import { listFixtures, loadFixture, UNREAD_FIXTURES } from '../../test/fixtures/index.ts'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import { extractAgentRuns } from './index.ts'
import { span } from './testing/span-builder.ts'

const REPR =
  "StopEvent(result=AgentOutput(response=ChatMessage(role=<MessageRole.ASSISTANT: 'assistant'>, additional_kwargs={}, blocks=[TextBlock(block_type='text', text='It shipped.')]), tool_calls=[], raw=None, current_agent_name='Agent'))"

/** An OpenInference agent whose own input/output are object reprs; its model call holds the messages. */
function reprTrace({ modelOutput }: { modelOutput: boolean }) {
  return [
    span({
      id: 'a',
      name: 'AgentWorkflow.run',
      end: 100,
      attributes: {
        'openinference.span.kind': 'AGENT',
        'input.value': "StartEvent(user_msg='Where is A17?')",
        'output.value': REPR,
      },
    }),
    span({
      id: 'l1',
      parent: 'a',
      start: 1,
      end: 10,
      attributes: {
        'openinference.span.kind': 'LLM',
        'llm.input_messages.0.message.role': 'system',
        'llm.input_messages.0.message.content': 'Answer order questions.',
        'llm.input_messages.1.message.role': 'user',
        'llm.input_messages.1.message.content': 'Where is A17?',
        ...(modelOutput
          ? {
              'llm.output_messages.0.message.role': 'assistant',
              'llm.output_messages.0.message.content': 'It shipped.',
            }
          : {}),
      },
    }),
  ]
}

describe('a runtime object repr is never passed off as text', () => {
  it("takes the final text and the input from the model call when the agent span's are reprs", () => {
    const [run] = extractAgentRuns(reprTrace({ modelOutput: true }))
    expect(run!.output[0]!.content.content).toBe('It shipped.')
    expect(run!.input.inputMessages.map((m) => m.content.content)).toEqual(['Where is A17?'])
    expect(run!.recorded).toMatchObject({ input: true, finalText: true })
  })

  it('records the final text as not recorded when the repr is its only source', () => {
    const [run] = extractAgentRuns(reprTrace({ modelOutput: false }))
    expect(run!.output[0]!.content.content).toBe('')
    expect(run!.recorded!.finalText).toBe(false)
    expect(run!.notes).toContain('final text not recorded (content capture off?)')
  })
})

describe('recorded parts of the fixtures', () => {
  // A part the truth holds is recorded; a part the producer records nowhere is reported missing.
  for (const fixture of listFixtures().filter((entry) => !UNREAD_FIXTURES.has(entry.name))) {
    it(`${fixture.producer}/${fixture.scenario}: recorded parts as the truth says`, () => {
      const { truth, proto } = loadFixture(fixture)
      const runs = extractAgentRuns(decodeOtlpTraces(proto, 'otlp_proto'))
      truth.runs.forEach((expected, index) => {
        const run = runs[index]!
        expect(run.recorded, `run ${index}`).toBeDefined()
        // A run that failed before any model call cannot know what only a prompt records.
        if (run.status === 'error') return
        // Parts the producer records nowhere (the truth says so) are reported as not recorded.
        const unrecorded = new Set<string>(expected.notRecorded ?? [])
        const check = (part: 'input' | 'system' | 'finalText', truthPart: string, present: boolean) => {
          if (unrecorded.has(truthPart)) expect(run.recorded![part], `run ${index} ${part}`).toBe(false)
          else if (present) expect(run.recorded![part], `run ${index} ${part}`).toBe(true)
        }
        check('input', 'input', expected.input.length > 0)
        check('system', 'instructions', Boolean(expected.instructions))
        check('finalText', 'text', Boolean(expected.finalText))
        // A call made with no arguments (a handoff transfer) may leave nothing to record.
        const argued = expected.toolCalls.every((call) => Object.keys(call.args ?? {}).length > 0)
        if (expected.toolCalls.length > 0 && argued)
          expect(run.recorded!.toolArguments, `run ${index} tool args`).toBe(true)
      })
    })
  }
})
