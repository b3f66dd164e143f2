import { readFileSync, writeFileSync } from 'node:fs'
import { OpenTelemetry } from '@ai-sdk/otel'
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { registerTelemetry, stepCountIs, ToolLoopAgent, tool } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import type { AgentRun } from '../model/index.ts'
import { extractAgentRuns } from './index.ts'
import { toolError, toolResult } from './testing/tool-invocations.ts'

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}

/** A model that asks for two tools in its first step and answers in its second. */
function scriptedModel() {
  let call = 0
  return new MockLanguageModelV4({
    provider: 'openai.chat',
    modelId: 'gpt-4o-mini',
    doGenerate: async () => {
      call += 1
      const content =
        call === 1
          ? [
              { type: 'tool-call' as const, toolCallId: 'call_a', toolName: 'lookup', input: '{"id":"A17"}' },
              { type: 'tool-call' as const, toolCallId: 'call_b', toolName: 'refund', input: '{"id":"A17"}' },
            ]
          : [{ type: 'text' as const, text: 'Refunded.' }]
      return {
        content,
        finishReason:
          call === 1
            ? { unified: 'tool-calls' as const, raw: 'tool_calls' }
            : { unified: 'stop' as const, raw: 'stop' },
        usage,
        warnings: [],
      }
    },
  })
}

/** Runs a real AI SDK 7 agent traced by @ai-sdk/otel and returns its trace as the pipeline would decode it. */
async function runTraced(telemetry: { recordInputs: boolean; recordOutputs: boolean }): Promise<AgentRun[]> {
  return extractAgentRuns(decodeOtlpTraces(await recordTrace(telemetry), 'otlp_proto'))
}

/** The OTLP protobuf export request of one real AI SDK 7 agent run traced by @ai-sdk/otel. */
async function recordTrace(telemetry: {
  recordInputs: boolean
  recordOutputs: boolean
}): Promise<Uint8Array> {
  exporter.reset()
  const agent = new ToolLoopAgent({
    id: 'support',
    model: scriptedModel(),
    instructions: 'You handle refunds.',
    tools: {
      lookup: tool({
        inputSchema: z.object({ id: z.string() }),
        execute: async ({ id }) => ({ id, ok: true }),
      }),
      refund: tool({
        inputSchema: z.object({ id: z.string() }),
        execute: async (): Promise<{ refunded: boolean }> => {
          throw new Error('refunds are closed')
        },
      }),
    },
    stopWhen: stepCountIs(3),
    maxRetries: 0,
    telemetry: { functionId: 'support', ...telemetry },
  })
  await agent.generate({ prompt: 'Refund A17 please.' })
  await provider.forceFlush()
  return ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans())!
}

/** A run's shape without its ids and times: what a recording of the same program always gives. */
function shapeOf(run: AgentRun) {
  const calls = run.output
    .flatMap((m) => m.content.parts)
    .flatMap((p) => (p.type === 'tool-invocation' ? [p.toolInvocation] : []))
  return {
    agentName: run.agentName,
    status: run.status,
    recorded: run.recorded,
    calls: calls.map((c) => `${c.toolName}:${c.state}`).sort(),
    finalText: run.output[0]?.content.content,
  }
}

const exporter = new InMemorySpanExporter()
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'capture-off' }),
  spanProcessors: [new SimpleSpanProcessor(exporter)],
})

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  trace.setGlobalTracerProvider(provider)
  globalThis.AI_SDK_TELEMETRY_INTEGRATIONS = []
  registerTelemetry(new OpenTelemetry())
})

afterAll(() => {
  globalThis.AI_SDK_TELEMETRY_INTEGRATIONS = []
  trace.disable()
  context.disable()
})

const CONTENT_OFF_FIXTURE = new URL(
  '../../test/fixtures/content-off/ai-sdk-7-genai-refund.pb',
  import.meta.url,
)

describe('a real AI SDK 7 trace (@ai-sdk/otel)', () => {
  it('the committed content-off trace (used by the CLI tests) is what a fresh recording gives', async () => {
    const fresh = await recordTrace({ recordInputs: false, recordOutputs: false })
    if (process.env.WRITE_CONTENT_OFF_FIXTURE === '1') writeFileSync(CONTENT_OFF_FIXTURE, fresh)
    const committed = extractAgentRuns(decodeOtlpTraces(readFileSync(CONTENT_OFF_FIXTURE), 'otlp_proto'))
    const recorded = extractAgentRuns(decodeOtlpTraces(fresh, 'otlp_proto'))
    expect(committed.map(shapeOf)).toEqual(recorded.map(shapeOf))
    expect(committed).toHaveLength(1)
  })

  it('with content capture on, gives the whole run', async () => {
    const [run] = await runTraced({ recordInputs: true, recordOutputs: true })
    expect(run!.agentName).toBe('support')
    expect(run!.input.systemMessages).toEqual([{ role: 'system', content: 'You handle refunds.' }])
    expect(run!.input.inputMessages.map((m) => m.content.content)).toEqual(['Refund A17 please.'])
    expect(
      run!.output[0]!.content.parts.map((p) => (p.type === 'tool-invocation' ? p.toolInvocation : p.type)),
    ).toEqual([
      toolResult('call_a', 'lookup', { id: 'A17' }, { id: 'A17', ok: true }),
      toolError('call_b', 'refund', { id: 'A17' }, 'refunds are closed'),
      'step-start',
      'text',
    ])
    expect(run!.output[0]!.content.content).toBe('Refunded.')
    expect(run!.status).toBe('ok')
    expect(run!.recorded).toEqual({
      input: true,
      system: true,
      finalText: true,
      toolArguments: true,
      toolResults: true,
    })
  })

  it('with content capture off, keeps the structure (tools, order, errors) and notes what is missing', async () => {
    const runs = await runTraced({ recordInputs: false, recordOutputs: false })
    expect(runs).toHaveLength(1)
    const run = runs[0]!
    expect(run.agentName).toBe('support')
    expect(run.status).toBe('ok')
    expect(run.input.inputMessages).toEqual([])
    // @ai-sdk/otel times spans in milliseconds and both tools start in the same one: without the
    // model's output there is nothing to order them by, so only the set is checked.
    const calls = run.output[0]!.content.parts.flatMap((p) =>
      p.type === 'tool-invocation' ? [p.toolInvocation] : [],
    )
    expect(calls.sort((a, b) => a.toolCallId.localeCompare(b.toolCallId))).toEqual([
      { toolCallId: 'call_a', toolName: 'lookup', args: {}, state: 'call' },
      // The failed span keeps status ERROR but neither its message nor an exception event.
      toolError('call_b', 'refund', {}, 'error (message not recorded)'),
    ])
    expect(run.output[0]!.content.parts).toHaveLength(2)
    expect(run.output[0]!.content.content).toBe('')
    expect(run.notes).toEqual(
      expect.arrayContaining([
        'input messages not recorded (content capture off?)',
        'tool call call_a (lookup): arguments not recorded',
        'tool call call_a (lookup): result not recorded',
        'final text not recorded (content capture off?)',
      ]),
    )
    // The typed field scorers read: nothing of the text was recorded, only the structure.
    expect(run.recorded).toEqual({
      input: false,
      system: false,
      finalText: false,
      toolArguments: false,
      toolResults: false,
    })
  })
})
