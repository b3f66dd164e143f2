/**
 * Live agent traffic for end-to-end tests: the fixture scenarios (scripts/fixtures/scenarios.ts) run
 * as AI SDK 7 `ToolLoopAgent`s against scripted mock models, traced by `@ai-sdk/otel` into the
 * OpenTelemetry JS SDK, which exports them over OTLP/HTTP protobuf (`BatchSpanProcessor` +
 * `OTLPTraceExporter`), as an instrumented application does. A copy of every span is kept in
 * memory, so a test knows which agent runs tracescore must find.
 */
import { OpenTelemetry } from '@ai-sdk/otel'
import { context } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { resourceFromAttributes } from '@opentelemetry/resources'
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { registerTelemetry } from 'ai'
import { aiSdk7, runAgent } from '../../scripts/fixtures/ai-sdk-agent.ts'
import { scenarios, ToolRecorder } from '../../scripts/fixtures/scenarios.ts'
import { decodeOtlpTraces } from '../../src/ingest/decode/index.ts'
import type { AgentRun } from '../../src/model/index.ts'
import { extractAgentRuns } from '../../src/transform/index.ts'

let contextManager: AsyncLocalStorageContextManager | undefined

/** What one batch of live agents sent: the runs tracescore must find, and their traces. */
export interface LiveTraffic {
  runs: AgentRun[]
  traceIds: string[]
}

/**
 * Runs every scenario `rounds` times under service name `service`, exporting to
 * `<otlpUrl>/v1/traces`, and resolves once the exporter has sent everything.
 */
export async function runLiveAgents(otlpUrl: string, service: string, rounds = 1): Promise<LiveTraffic> {
  // Parent/child links across awaits need a context manager, as in any instrumented Node app.
  if (!contextManager) {
    contextManager = new AsyncLocalStorageContextManager().enable()
    context.setGlobalContextManager(contextManager)
  }
  const memory = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${otlpUrl}/v1/traces` }), {
        scheduledDelayMillis: 100,
      }),
      new SimpleSpanProcessor(memory),
    ],
  })
  // Registered globally, as applications do; one batch of agents runs at a time.
  globalThis.AI_SDK_TELEMETRY_INTEGRATIONS = []
  registerTelemetry(new OpenTelemetry({ tracer: provider.getTracer('ai'), agentSpanName: 'functionId' }))
  try {
    for (let round = 0; round < rounds; round++) {
      for (const scenario of scenarios) {
        // A scenario that scripts a model error rejects: its trace (status ERROR) is traffic too.
        await runAgent(aiSdk7, scenario.agent, scenario.streaming, [], new ToolRecorder()).catch(
          () => undefined,
        )
      }
    }
  } finally {
    globalThis.AI_SDK_TELEMETRY_INTEGRATIONS = []
  }
  await provider.forceFlush()
  // Read before shutdown, which empties the in-memory exporter.
  const spans = decodeOtlpTraces(ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!)
  await provider.shutdown()
  return {
    runs: extractAgentRuns(spans),
    traceIds: [...new Set(spans.map((s) => s.traceId))],
  }
}
