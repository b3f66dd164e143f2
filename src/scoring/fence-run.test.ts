import { describe, expect, it } from 'vitest'
import { fenceRunContent } from './fence-run.ts'

const N = 'abc'
const f = (text: string) => `<untrusted-data-${N}>${text}</untrusted-data-${N}>`

function message(role: string, content: Record<string, unknown>) {
  return { id: `${role}-1`, role, createdAt: new Date(0), content: { format: 2, ...content } }
}

describe('fenceRunContent', () => {
  const invocation = {
    state: 'result',
    toolCallId: 'c1',
    toolName: 'search',
    args: { q: 'paris' },
    result: ['ok', 2],
  }
  const run = {
    runId: 'r',
    input: {
      inputMessages: [message('user', { parts: [{ type: 'text', text: 'hi' }], content: 'hi' })],
      rememberedMessages: [],
      systemMessages: [
        { role: 'system', content: 'Be nice.' },
        { role: 'system', content: [{ type: 'text', text: 'More.' }] },
      ],
      taggedSystemMessages: { memory: [{ role: 'system', content: 'Remembered.' }] },
    },
    output: [
      message('assistant', {
        parts: [
          { type: 'reasoning', reasoning: 'think', details: [{ type: 'text', text: 'think' }] },
          { type: 'tool-invocation', toolInvocation: invocation },
          { type: 'step-start' },
          { type: 'text', text: '' },
        ],
        toolInvocations: [invocation],
      }),
    ],
    requestContext: { userId: 'u1' },
  }

  it('fences message texts, system messages and tool strings, and leaves what code decides on', () => {
    const fenced = fenceRunContent(run, N) as any
    expect(fenced.input.inputMessages[0]).toMatchObject({
      id: 'user-1',
      role: 'user',
      content: { format: 2, content: f('hi'), parts: [{ type: 'text', text: f('hi') }] },
    })
    expect(fenced.input.systemMessages).toEqual([
      { role: 'system', content: f('Be nice.') },
      { role: 'system', content: [{ type: 'text', text: f('More.') }] },
    ])
    expect(fenced.input.taggedSystemMessages.memory).toEqual([{ role: 'system', content: f('Remembered.') }])
    const [reasoning, tool, step, empty] = fenced.output[0].content.parts
    expect(reasoning).toEqual({
      type: 'reasoning',
      reasoning: f('think'),
      details: [{ type: 'text', text: f('think') }],
    })
    expect(tool.toolInvocation).toEqual({ ...invocation, args: { q: f('paris') }, result: [f('ok'), 2] })
    expect(fenced.output[0].content.toolInvocations[0].args).toEqual({ q: f('paris') })
    expect(step).toEqual({ type: 'step-start' })
    expect(empty).toEqual({ type: 'text', text: '' })
    expect(fenced.requestContext).toBe(run.requestContext)
    expect(fenced.input.inputMessages[0].createdAt).toBe(run.input.inputMessages[0]!.createdAt)
  })

  it('does not touch the run it was given, and leaves other shapes as they are', () => {
    const before = structuredClone(run)
    fenceRunContent(run, N)
    expect(run).toEqual(before)
    const custom = { input: 'a question', output: { text: 'an answer' } }
    expect(fenceRunContent(custom, N)).toEqual(custom)
  })
})
