import { describe, expect, it } from 'vitest'
import { decodeOtlpTraces } from '../../../src/ingest/decode/index.ts'
import type { AgentRun, MastraDBMessage } from '../../../src/model/index.ts'
import { extractAgentRuns, findAgentSpans, spanRole } from '../../../src/transform/index.ts'
import {
  type GroundTruthRun,
  listFixtures as listAllFixtures,
  loadFixture,
  type TruthMessage,
} from '../../fixtures/index.ts'
import { pythonProducers } from '../../fixtures/python.ts'

// Python producers: enabled by the transform branch.
const listFixtures = () => listAllFixtures().filter((entry) => !pythonProducers.includes(entry.producer))

const CONVENTION_OF_TRUTH = {
  genai: 'genai',
  'genai-events': 'genai',
  'ai-sdk-legacy': 'ai-sdk',
  mastra: 'mastra',
  openinference: 'openinference',
  // Python producers only (excluded above): the transform branch sets what it rebuilds them as.
  traceloop: 'traceloop',
} as const

function textOf(message: MastraDBMessage): string {
  if (typeof message.content.content === 'string') return message.content.content
  return message.content.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n')
}

function messages(list: MastraDBMessage[]): TruthMessage[] {
  return list.map((message) => ({ role: message.role as TruthMessage['role'], text: textOf(message) }))
}

/** The tool calls of a run in the ground truth's shape, read from the output's tool parts. */
function toolCalls(run: AgentRun) {
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

function expectRunMatches(
  run: AgentRun,
  truth: GroundTruthRun,
  runs: AgentRun[],
  truths: GroundTruthRun[],
): void {
  expect(run.agentName).toBe(truth.agentName)
  if (truth.agentId) expect(run.agentId).toBe(truth.agentId)
  expect(run.status).toBe(truth.status)
  if (truth.parentAgentName) {
    const parent = runs.find((candidate) => candidate.agentName === truth.parentAgentName)
    expect(run.parentRunSpanId).toBe(parent?.spanId)
    // A sub-agent run inherits its caller's thread (Mastra copies the metadata to child spans).
    const parentTruth = truths.find((candidate) => candidate.agentName === truth.parentAgentName)
    expect([truth.conversationId, parentTruth?.conversationId]).toContain(run.conversationId)
  } else {
    expect(run.parentRunSpanId).toBeUndefined()
    expect(run.conversationId).toBe(truth.conversationId)
  }
  if (truth.instructions !== undefined && run.input.systemMessages.length === 0) {
    // Only model-call prompts carry instructions in some conventions; a run that failed before
    // any model call was recorded cannot know them, and says so.
    expect(run.status).toBe('error')
    expect(run.notes).toContain('system instructions not recorded (no model call prompt)')
  } else if (truth.instructions !== undefined) {
    expect(run.input.systemMessages).toEqual([{ role: 'system', content: truth.instructions }])
  }
  expect(messages(run.input.inputMessages)).toEqual(truth.input)
  expect(messages(run.input.rememberedMessages)).toEqual(truth.history)
  expect(toolCalls(run)).toEqual(truth.toolCalls)
  expect(run.output).toHaveLength(1)
  expect(run.output[0]!.role).toBe('assistant')
  expect(run.output[0]!.content.content).toBe(truth.finalText)
  if (truth.resourceId && !truth.parentAgentName) {
    for (const message of [...run.input.inputMessages, ...run.output])
      expect(message.resourceId).toBe(truth.resourceId)
  }
}

describe('extractAgentRuns on generated fixtures', () => {
  const entries = listFixtures()

  it('has fixtures from real instrumentation libraries to check against', () => {
    expect(entries.length).toBeGreaterThan(0)
  })

  describe.each(entries.map((entry) => [entry.name, entry] as const))('%s', (_name, entry) => {
    const fixture = loadFixture(entry)
    const spans = decodeOtlpTraces(fixture.proto, 'otlp_proto')
    const runs = extractAgentRuns(spans)

    it('finds one run per agent turn, in start order', () => {
      expect(runs.map((run) => run.agentName)).toEqual(fixture.truth.runs.map((run) => run.agentName))
      expect(findAgentSpans(spans).map((span) => span.spanId)).toEqual(runs.map((run) => run.spanId))
    })

    it('recognises the convention', () => {
      for (const run of runs) {
        const agent = spans.find((span) => span.spanId === run.spanId)!
        // OpenInference's AI SDK processor adds its keys to GenAI spans; the GenAI keys are read first.
        const enriched =
          fixture.truth.convention === 'openinference' && 'gen_ai.operation.name' in agent.attributes
        expect(run.convention).toBe(enriched ? 'genai' : CONVENTION_OF_TRUTH[fixture.truth.convention])
      }
    })

    it.each(fixture.truth.runs.map((truth, index) => [truth.agentName ?? `run ${index}`, index] as const))(
      'rebuilds run %s as the ground truth says',
      (_agent, index) => {
        expectRunMatches(runs[index]!, fixture.truth.runs[index]!, runs, fixture.truth.runs)
      },
    )

    it('gives the same runs from the OTLP/JSON form', () => {
      expect(extractAgentRuns(decodeOtlpTraces(fixture.json, 'otlp_json'))).toEqual(runs)
    })
  })
})

describe('the OpenInference keys alone, on fixtures an OpenInference processor enriched', () => {
  const entries = listFixtures().filter((entry) => loadFixture(entry).truth.convention === 'openinference')

  it('has such fixtures', () => {
    expect(entries.length).toBeGreaterThan(0)
  })

  it.each(entries.map((entry) => [entry.name, entry] as const))('%s', (_name, entry) => {
    const fixture = loadFixture(entry)
    // Drop the GenAI and AI SDK keys, as a backend keeping only OpenInference attributes would.
    const spans = decodeOtlpTraces(fixture.proto).map((span) => ({
      ...span,
      attributes: Object.fromEntries(
        Object.entries(span.attributes).filter(
          ([key]) => !key.startsWith('gen_ai.') && !key.startsWith('ai.'),
        ),
      ),
    }))
    const runs = extractAgentRuns(spans)
    expect(runs).toHaveLength(fixture.truth.runs.length)
    fixture.truth.runs.forEach((truth, index) => {
      const run = runs[index]!
      expect(run.convention).toBe('openinference')
      // The conversation id is only in gen_ai.conversation.id here (no OpenInference session.id).
      expectRunMatches({ ...run, conversationId: truth.conversationId }, truth, runs, fixture.truth.runs)
    })
  })
})

describe('fixtures with every tool span lost', () => {
  const entries = listFixtures()

  it.each(entries.map((entry) => [entry.name, entry] as const))(
    '%s: tool calls are rebuilt from the model messages',
    (_name, entry) => {
      const fixture = loadFixture(entry)
      const spans = decodeOtlpTraces(fixture.proto).filter((span) => spanRole(span) !== 'tool')
      const runs = extractAgentRuns(spans)
      fixture.truth.runs.forEach((truth, index) => {
        const calls = toolCalls(runs[index]!)
        // Ids, names and arguments come from the model outputs, in the model's order.
        expect(calls.map(({ id, name, args }) => ({ id, name, args }))).toEqual(
          truth.toolCalls.map(({ id, name, args }) => ({ id, name, args })),
        )
        // Results come from the next prompts, where the convention records them (Mastra's do not).
        if (fixture.truth.convention !== 'mastra') {
          truth.toolCalls.forEach((call, position) => {
            if (call.error === undefined) expect(calls[position]!.result).toEqual(call.result)
          })
        }
      })
    },
  )
})
