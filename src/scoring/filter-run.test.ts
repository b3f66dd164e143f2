import { filterRun as mastraFilterRun } from '@mastra/core/evals'
import { describe, expect, it } from 'vitest'
import type {
  MastraDBMessage,
  MastraMessagePart,
  ScorerRunInputForAgent,
  ToolInvocationPart,
} from '../model/message.ts'
import { createScorer } from './create-scorer.ts'
import { type FilterRunOptions, filterRun } from './filter-run.ts'

const at = new Date('2026-01-01T00:00:00Z')

function message(id: string, role: MastraDBMessage['role'], parts: MastraMessagePart[]): MastraDBMessage {
  return { id, role, createdAt: at, content: { format: 2, parts } }
}
const text = (value: string): MastraMessagePart => ({ type: 'text', text: value })
const tool = (toolName: string, toolCallId = `call-${toolName}`): ToolInvocationPart => ({
  type: 'tool-invocation',
  toolInvocation: { toolCallId, toolName, args: { path: '/tmp/x' }, state: 'result', result: 'ok' },
})
const stepStart: MastraMessagePart = { type: 'step-start' }
const reasoning: MastraMessagePart = { type: 'reasoning', reasoning: 'think', details: [] }
const data = (type: `data-${string}`): MastraMessagePart => ({ type, data: { n: 1 } })
const sourceDocument: MastraMessagePart = {
  type: 'source-document',
  sourceId: 's1',
  mediaType: 'text/plain',
  title: 'doc',
}

/** A coding-agent conversation: text, tool calls of several tools, data parts, reasoning. */
function toolHeavyRun() {
  const remembered = [
    message('r1', 'user', [text('please fix the bug')]),
    message('r2', 'assistant', [stepStart, tool('read_file'), text('reading')]),
    message('r3', 'assistant', [tool('execute_command')]),
    message('r4', 'assistant', [data('data-om-status')]),
    message('r5', 'assistant', [reasoning, tool('write_file'), tool('write_file', 'call-2')]),
    message('r6', 'assistant', [data('data-sandbox-stdout'), text('built')]),
    message('r7', 'assistant', [sourceDocument]),
    message('r8', 'user', [text('thanks')]),
  ]
  const output = [
    message('o1', 'assistant', [stepStart, tool('string_replace_lsp'), text('replaced')]),
    message('o2', 'assistant', [tool('execute_command'), data('data-sandbox-exit')]),
    message('o3', 'assistant', [text('all tests pass')]),
    message('o4', 'assistant', [data('data-tool-call-approval')]),
  ]
  const input: ScorerRunInputForAgent = {
    inputMessages: [message('i1', 'user', [text('and now the docs')])],
    rememberedMessages: remembered,
    systemMessages: [{ role: 'system', content: 'You are a coding agent.' }],
    taggedSystemMessages: { memory: [{ role: 'system', content: 'working memory' }] },
  }
  return {
    runId: 'run-1',
    input,
    output,
    groundTruth: 'docs updated',
    expectedTrajectory: { steps: [] },
    requestContext: { userId: 'u1' },
  }
}

const ids = (messages: MastraDBMessage[]) => messages.map((m) => m.id)

describe('filterRun', () => {
  it('returns an equal shallow copy when no option is set', () => {
    const run = toolHeavyRun()
    const prepared = filterRun({})(run)
    expect(prepared).not.toBe(run)
    expect(prepared).toEqual(run)
    expect(prepared.input).not.toBe(run.input)
    expect(prepared.input.inputMessages).toBe(run.input.inputMessages)
  })

  it('partTypes keeps messages with a matching part and drops text-only ones when text is not listed', () => {
    const prepared = filterRun({ partTypes: ['tool-invocation'] })(toolHeavyRun())
    expect(ids(prepared.input.rememberedMessages)).toEqual(['r2', 'r3', 'r5'])
    expect(ids(prepared.output)).toEqual(['o1', 'o2'])
  })

  it('partTypes with text keeps text messages too', () => {
    const prepared = filterRun({ partTypes: ['tool-invocation', 'text'] })(toolHeavyRun())
    expect(ids(prepared.input.rememberedMessages)).toEqual(['r1', 'r2', 'r3', 'r5', 'r6', 'r8'])
    expect(ids(prepared.output)).toEqual(['o1', 'o2', 'o3'])
  })

  it('partTypes entries are prefixes', () => {
    const run = toolHeavyRun()
    expect(ids(filterRun({ partTypes: ['data-'] })(run).input.rememberedMessages)).toEqual(['r4', 'r6'])
    expect(ids(filterRun({ partTypes: ['data-om-'] })(run).input.rememberedMessages)).toEqual(['r4'])
    expect(ids(filterRun({ partTypes: ['data-sandbox-'] })(run).output)).toEqual(['o2'])
    expect(ids(filterRun({ partTypes: ['source'] })(run).input.rememberedMessages)).toEqual(['r7'])
    expect(ids(filterRun({ partTypes: ['step'] })(run).input.rememberedMessages)).toEqual(['r2'])
  })

  it('partTypes on a tool message needs some matching part, not necessarily the tool part', () => {
    const prepared = filterRun({ partTypes: ['reasoning'] })(toolHeavyRun())
    expect(ids(prepared.input.rememberedMessages)).toEqual(['r5'])
    expect(ids(prepared.output)).toEqual([])
  })

  it('toolNames keeps tool messages calling a matching tool and leaves non-tool messages alone', () => {
    const prepared = filterRun({ toolNames: ['write_file', 'execute_command'] })(toolHeavyRun())
    expect(ids(prepared.input.rememberedMessages)).toEqual(['r1', 'r3', 'r4', 'r5', 'r6', 'r7', 'r8'])
    expect(ids(prepared.output)).toEqual(['o2', 'o3', 'o4'])
  })

  it('toolNames entries are prefixes of the tool name', () => {
    const run = toolHeavyRun()
    const prepared = filterRun({ toolNames: ['string_'] })(run)
    expect(ids(prepared.output)).toEqual(['o1', 'o3', 'o4'])
    expect(ids(filterRun({ toolNames: ['write'] })(run).input.rememberedMessages)).toContain('r5')
    expect(ids(filterRun({ toolNames: ['file'] })(run).input.rememberedMessages)).not.toContain('r5')
  })

  it('toolNames and partTypes together: tool messages need both, others need a matching part', () => {
    const run = toolHeavyRun()
    const both = filterRun({ toolNames: ['read_file', 'write_file'], partTypes: ['text'] })(run)
    // r2 calls read_file and has text; r5 calls write_file but has no text part; r3 the wrong tool.
    expect(ids(both.input.rememberedMessages)).toEqual(['r1', 'r2', 'r6', 'r8'])
    expect(ids(both.output)).toEqual(['o3'])
  })

  it('maxRememberedMessages keeps the most recent N after filtering', () => {
    const run = toolHeavyRun()
    expect(ids(filterRun({ maxRememberedMessages: 3 })(run).input.rememberedMessages)).toEqual([
      'r6',
      'r7',
      'r8',
    ])
    const filtered = filterRun({ partTypes: ['tool-invocation'], maxRememberedMessages: 2 })(run)
    expect(ids(filtered.input.rememberedMessages)).toEqual(['r3', 'r5'])
    expect(ids(filtered.output)).toEqual(['o1', 'o2'])
  })

  it('maxOutputMessages keeps the most recent N after filtering and leaves remembered messages alone', () => {
    const run = toolHeavyRun()
    const prepared = filterRun({ maxOutputMessages: 1 })(run)
    expect(ids(prepared.output)).toEqual(['o4'])
    expect(prepared.input.rememberedMessages).toHaveLength(8)
    expect(ids(filterRun({ partTypes: ['text'], maxOutputMessages: 2 })(run).output)).toEqual(['o1', 'o3'])
  })

  it('a limit of 0 means no limit, and a limit above the length keeps everything', () => {
    const run = toolHeavyRun()
    const zero = filterRun({ maxRememberedMessages: 0, maxOutputMessages: 0 })(run)
    expect(zero.input.rememberedMessages).toHaveLength(8)
    expect(zero.output).toHaveLength(4)
    const large = filterRun({ maxRememberedMessages: 100, maxOutputMessages: 100 })(run)
    expect(large.input.rememberedMessages).toHaveLength(8)
    expect(large.output).toHaveLength(4)
  })

  it('drop options set exactly the named fields to undefined', () => {
    const run = toolHeavyRun()
    const a = filterRun({ dropRequestContext: true })(run)
    expect(a).toHaveProperty('requestContext', undefined)
    expect(a.groundTruth).toBe('docs updated')
    expect(a.expectedTrajectory).toEqual({ steps: [] })
    const b = filterRun({ dropGroundTruth: true, dropExpectedTrajectory: true })(run)
    expect(b).toHaveProperty('groundTruth', undefined)
    expect(b).toHaveProperty('expectedTrajectory', undefined)
    expect(b.requestContext).toEqual({ userId: 'u1' })
    expect(b.runId).toBe('run-1')
  })

  it('never filters inputMessages, systemMessages or taggedSystemMessages', () => {
    const run = toolHeavyRun()
    const prepared = filterRun({
      partTypes: ['tool-invocation'],
      toolNames: ['nothing'],
      maxRememberedMessages: 1,
    })(run)
    expect(prepared.input.inputMessages).toBe(run.input.inputMessages)
    expect(prepared.input.systemMessages).toBe(run.input.systemMessages)
    expect(prepared.input.taggedSystemMessages).toBe(run.input.taggedSystemMessages)
    expect(prepared.input.rememberedMessages).toEqual([])
  })

  it('does not mutate the run it is given', () => {
    const run = toolHeavyRun()
    const snapshot = structuredClone(run)
    const rememberedBefore = run.input.rememberedMessages
    const outputBefore = run.output
    filterRun({
      partTypes: ['text'],
      toolNames: ['write'],
      maxRememberedMessages: 1,
      maxOutputMessages: 1,
      dropRequestContext: true,
      dropGroundTruth: true,
      dropExpectedTrajectory: true,
    })(run)
    expect(run).toEqual(snapshot)
    expect(run.input.rememberedMessages).toBe(rememberedBefore)
    expect(run.output).toBe(outputBefore)
  })

  it('keeps messages without a parts array and leaves non-agent shapes untouched', () => {
    const loose = { id: 'x', role: 'user', content: 'plain string' } as unknown as MastraDBMessage
    const run = { input: { rememberedMessages: [loose] }, output: [loose] }
    const prepared = filterRun({ partTypes: ['tool-invocation'] })(run)
    expect(prepared.input.rememberedMessages).toEqual([loose])
    expect(prepared.output).toEqual([loose])

    const trajectory = { steps: [{ stepType: 'tool_call', name: 'x' }] }
    const other = { input: 'a prompt', output: trajectory }
    const unchanged = filterRun({ partTypes: ['text'], maxOutputMessages: 1 })(other)
    expect(unchanged.input).toBe('a prompt')
    expect(unchanged.output).toBe(trajectory)
  })

  it('gives an empty rememberedMessages when the key exists but is undefined', () => {
    const run = { input: { rememberedMessages: undefined, inputMessages: [] }, output: [] }
    expect(filterRun({})(run).input.rememberedMessages).toEqual([])
  })

  it('empty option lists filter everything they apply to, as in Mastra', () => {
    const run = toolHeavyRun()
    expect(filterRun({ partTypes: [] })(run).output).toEqual([])
    expect(ids(filterRun({ toolNames: [] })(run).output)).toEqual(['o3', 'o4'])
  })
})

describe('filterRun as the prepareRun of createScorer', () => {
  it('steps and the result see the filtered run; system and input messages stay whole', async () => {
    const seen: { remembered: string[]; output: string[]; system: number; groundTruth: unknown }[] = []
    const scorer = createScorer({
      id: 'write-quality',
      description: 'scores file writes',
      type: 'agent',
      prepareRun: filterRun({
        toolNames: ['write_file'],
        partTypes: ['tool-invocation'],
        dropGroundTruth: true,
      }),
    }).generateScore(({ run }) => {
      seen.push({
        remembered: ids(run.input.rememberedMessages),
        output: ids(run.output),
        system: run.input.systemMessages.length,
        groundTruth: run.groundTruth,
      })
      return run.input.rememberedMessages.length
    })
    const run = toolHeavyRun()
    const result = await scorer.run(run)
    expect(seen).toEqual([{ remembered: ['r5'], output: [], system: 1, groundTruth: undefined }])
    expect(result.score).toBe(1)
    expect(ids(result.input?.rememberedMessages ?? [])).toEqual(['r5'])
    expect(result.input?.inputMessages).toEqual(run.input.inputMessages)
    expect(run.input.rememberedMessages).toHaveLength(8)
  })
})

describe('filterRun against @mastra/core 1.71 filterRun', () => {
  const cases: [string, FilterRunOptions][] = [
    ['nothing', {}],
    ['partTypes tool', { partTypes: ['tool-invocation'] }],
    ['partTypes text+tool', { partTypes: ['tool-invocation', 'text'] }],
    ['partTypes data prefix', { partTypes: ['data-'] }],
    ['partTypes data-om prefix', { partTypes: ['data-om-'] }],
    ['partTypes source prefix', { partTypes: ['source'] }],
    ['partTypes reasoning', { partTypes: ['reasoning'] }],
    ['partTypes empty', { partTypes: [] }],
    ['toolNames', { toolNames: ['write_file', 'execute_command'] }],
    ['toolNames prefix', { toolNames: ['string_', 'read'] }],
    ['toolNames empty', { toolNames: [] }],
    ['toolNames + partTypes', { toolNames: ['read_file', 'write_file'], partTypes: ['text'] }],
    ['toolNames + partTypes data', { toolNames: ['execute'], partTypes: ['data-sandbox-'] }],
    ['limits', { maxRememberedMessages: 3, maxOutputMessages: 1 }],
    ['zero limits', { maxRememberedMessages: 0, maxOutputMessages: 0 }],
    ['negative limits', { maxRememberedMessages: -2, maxOutputMessages: -1 }],
    ['filter + limits', { partTypes: ['tool-invocation'], maxRememberedMessages: 2, maxOutputMessages: 1 }],
    ['drops', { dropRequestContext: true, dropGroundTruth: true, dropExpectedTrajectory: true }],
    [
      'everything',
      {
        partTypes: ['text', 'data-'],
        toolNames: ['write'],
        maxRememberedMessages: 4,
        maxOutputMessages: 2,
        dropRequestContext: true,
        dropGroundTruth: true,
        dropExpectedTrajectory: true,
      },
    ],
  ]

  const runs: [string, () => { input?: unknown; output: unknown }][] = [
    ['tool-heavy agent run', toolHeavyRun],
    ['trajectory output', () => ({ input: toolHeavyRun().input, output: { steps: [] }, groundTruth: 1 })],
    ['string input', () => ({ input: 'hello', output: toolHeavyRun().output })],
    [
      'messages without parts',
      () => ({
        input: { rememberedMessages: [{ id: 'a', role: 'user', content: 'x' }] },
        output: [{ id: 'b', role: 'assistant', content: { format: 2 } }],
      }),
    ],
  ]

  for (const [runName, makeRun] of runs) {
    for (const [caseName, options] of cases) {
      it(`${runName}: ${caseName}`, () => {
        const ours = filterRun(options)(makeRun())
        const theirs = mastraFilterRun(options)(makeRun() as any)
        expect(ours).toStrictEqual(theirs)
      })
    }
  }
})
