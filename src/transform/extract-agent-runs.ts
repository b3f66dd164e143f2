import { type AgentRun, groupByTrace, type Span, StatusCode } from '../model/index.ts'
import { adoptOrphans } from './adopt-orphans.ts'
import { resolveIdentity, stringOf } from './agent-identity.ts'
import { findRuns } from './agent-spans.ts'
import { CallingToolCall } from './calling-tool-call.ts'
import type { ChatMessage } from './chat-message.ts'
import type { AgentIdentity, ConventionReader } from './conventions/convention-reader.ts'
import {
  agentNameInValuesBelow,
  genericReader,
  modelContent,
  withGenericReading,
} from './conventions/generic.ts'
import { splitConversation } from './conversation.ts'
import { readerFor, withSpanCache } from './detect-convention.ts'
import { lostAgentRuns } from './lost-agent-runs.ts'
import { buildOutputMessage, type MessageContext, toMastraMessages } from './message-builder.ts'
import { ModelOutputs } from './model-outputs.ts'
import { Notes } from './notes.ts'
import { parentRuns } from './parent-runs.ts'
import { buildRequestContext } from './request-context.ts'
import { pickFinalText, runFailed } from './run-outcome.ts'
import { collectRunSpans } from './run-spans.ts'
import { buildSpanTree, compareNanos, nanosToMillis, type SpanTree } from './span-tree.ts'
import { stepTexts } from './step-texts.ts'
import { textsInsideTemplate, withoutIntroduction } from './template-text.ts'
import { collectToolCalls } from './tool-calls.ts'
import { twinAgentSpans, withTwins } from './twin-spans.ts'

/** Options of `extractAgentRuns`. */
export interface ExtractAgentRunsOptions {
  /**
   * Runs not to rebuild, by the span id that heads them (runs an earlier release of the trace
   * already scored): they are still found, so the other runs come out exactly as without them.
   */
  skipRunSpanIds?: readonly string[]
}

/**
 * Finds every agent run in the spans of one or more traces and reshapes each into Mastra's
 * scorer input/output. One run per agent-run span, nested agents included, earliest first
 * within each trace. Never throws: what cannot be rebuilt is listed in the run's `notes`.
 */
export function extractAgentRuns(spans: readonly Span[], options: ExtractAgentRunsOptions = {}): AgentRun[] {
  const skip = new Set(options.skipRunSpanIds)
  return withGenericReading(() =>
    [...groupByTrace(spans).values()].flatMap((trace) =>
      withSpanCache(trace.length, () => extractTraceRuns(trace, skip)),
    ),
  )
}

function extractTraceRuns(spans: readonly Span[], skip: ReadonlySet<string>): AgentRun[] {
  const tree = buildSpanTree(spans)
  const { runs: agents, runOf, continuations, structural, pseudoTools } = findRuns(tree)
  const adopted = adoptOrphans(tree, agents)
  const allLost = lostAgentRuns(tree, new Set([...adopted.values()].flat()))
  const lost = skip.size === 0 ? allLost : allLost.filter(({ agent }) => !skip.has(agent.spanId))
  const parents = parentRuns(tree, agents, runOf)
  const wanted = skip.size === 0 ? agents : agents.filter((agent) => !skip.has(agent.spanId))
  const runs = wanted.map((agent) => {
    try {
      return buildRun(tree, agent, {
        // Its continuations (a handoff chain's later agents) and orphans it adopted by time.
        extraRoots: [...(continuations.get(agent.spanId) ?? []), ...(adopted.get(agent.spanId) ?? [])],
        adopted: adopted.get(agent.spanId) ?? [],
        parentRun: parents.get(agent.spanId),
        // Spans that head another run (nested runs, their continuations) are cut out of this one.
        isRun: (span) => {
          const owner = runOf.get(span.spanId)
          return owner !== undefined && owner !== agent
        },
        reader: structural.has(agent) ? genericReader : undefined,
        pseudoTools,
      })
    } catch (error) {
      return bareRun(agent, error)
    }
  })
  for (const { agent, roots, reader } of lost) {
    try {
      runs.push(
        buildRun(tree, agent, {
          extraRoots: roots,
          adopted: [],
          parentRun: undefined,
          isRun: (span) => runOf.has(span.spanId),
          reader,
        }),
      )
    } catch (error) {
      runs.push(bareRun(agent, error))
    }
  }
  // Runs whose agent span is missing join the others in start order.
  return allLost.length === 0
    ? runs
    : runs.sort((a, b) => compareNanos(a.startTimeUnixNano, b.startTimeUnixNano))
}

/**
 * The last line of defence of "never throws": a run that could not be rebuilt (a reader bug on
 * data nobody foresaw) still comes out, with its identity from the span and the error in `notes`,
 * so one odd trace never stops the pipeline.
 */
function bareRun(agent: Span, error: unknown): AgentRun {
  const message = error instanceof Error ? error.message : String(error)
  return {
    traceId: agent.traceId,
    spanId: agent.spanId,
    convention: readerFor(agent)?.convention ?? 'genai',
    status: agent.status.code === StatusCode.ERROR ? 'error' : 'ok',
    startTimeUnixNano: agent.startTimeUnixNano,
    endTimeUnixNano: agent.endTimeUnixNano,
    input: { inputMessages: [], rememberedMessages: [], systemMessages: [], taggedSystemMessages: {} },
    output: [],
    recorded: { input: false, system: false, finalText: false, toolArguments: false, toolResults: false },
    notes: [`the run could not be rebuilt: ${message}`],
  }
}

/** Where a run sits in its trace: spans adopted by time, the run that called it, and which spans are runs. */
interface RunPlace {
  /** Subtrees outside the agent span's that belong to the run. */
  extraRoots: readonly Span[]
  adopted: readonly Span[]
  parentRun: Span | undefined
  isRun: (span: Span) => boolean
  /**
   * The reader of a run whose agent span is missing (a stand-in span has no convention of its own),
   * or of a run found by structure (the generic reader names it from the spans around).
   */
  reader?: ConventionReader
  /** Agent spans that are a framework's pseudo-tool: read as tool calls of the run. */
  pseudoTools?: ReadonlySet<Span>
}

/**
 * Takes a framework's template off what only the first prompt held: instructions the agent span
 * records alone (not as instructions of its convention), or the system text without the
 * framework's introduction of the agent; and the user's input as a field.
 */
function unwrapTemplates(
  agent: Span,
  { recorded, agentName }: { recorded: boolean; agentName: string | undefined },
  conversation: { system: string[]; input: ChatMessage[]; fromAgent: boolean },
  notes: Notes,
): void {
  const system = !recorded && conversation.system.length > 0 ? conversation.system : undefined
  // Input the agent span recorded itself is no template's: only the first prompt's may be.
  const input = conversation.fromAgent ? undefined : oneUserText(conversation.input)
  const inside = textsInsideTemplate(agent, { system: system?.join('\n'), input })
  if (inside.system !== undefined) {
    conversation.system = [inside.system]
    notes.add(
      "system instructions: the agent span's text inside the first prompt's system text (its template left out)",
    )
  } else if (system !== undefined) {
    const own = withoutIntroduction(agent, system, agentName)
    if (own !== undefined) {
      conversation.system = own
      notes.add(
        "system instructions: the first prompt's system text without the paragraph introducing the agent by its recorded name (the framework's)",
      )
    }
  }
  // The user's input as the agent span received it where the first prompt wraps it in the
  // framework's template (`Current Task: <input>\n\nThis is the expected criteria…`).
  if (inside.input !== undefined) {
    conversation.input[0] = {
      role: conversation.input[0]!.role,
      parts: [{ type: 'text', text: inside.input }],
    }
    notes.add("input: the agent span's text inside the first prompt's user message (its template left out)")
  }
}

/** The text of an input that is one message of one text part. */
function oneUserText(input: readonly ChatMessage[]): string | undefined {
  if (input.length !== 1) return undefined
  const parts = input[0]!.parts
  return parts.length === 1 && parts[0]!.type === 'text' ? parts[0]!.text : undefined
}

/**
 * The run's first model prompt: the first call's, passing calls that recorded neither prompt nor
 * answer where a later one did (a span that only prepares the request, LlamaIndex's
 * `_prepare_chat_with_tools`), so content capture off still reads the first call.
 */
function firstPrompt(
  models: readonly Span[],
  notes: Notes,
  outputs: ModelOutputs,
): ChatMessage[] | undefined {
  for (const model of models) {
    const prompt = readerFor(model)?.modelInput(model, notes)
    if (prompt && prompt.length > 0) return prompt
    // Read once for the run: its tool calls and texts read the same output (notes given then).
    if (outputs.peek(model, new Notes())?.length) return prompt
  }
  return undefined
}

/**
 * What the caller passed to the agent, as its reader reads it; where neither its convention's keys
 * nor any model call recorded it (a run that failed before its first prompt was written), a message
 * list the agent span holds under a key of its own (Pydantic AI's `pydantic_ai.all_messages`).
 */
function agentInputOf(
  agent: Span,
  reader: ConventionReader,
  prompt: ChatMessage[] | undefined,
  notes: Notes,
  tree: SpanTree,
  called: CallingToolCall,
): ChatMessage[] | undefined {
  const input = reader.agentInput(agent, notes, tree)
  if (input || prompt) return input
  const held = modelContent(agent).prompt
  if (held) notes.add("input: the agent span's own message list (no model call recorded a prompt)")
  return held ?? called.input(notes)
}

/** Notes what the trace lacks around a run: its agent span or that span's parent, parents of adopted spans, an end. */
function noteGaps(
  tree: SpanTree,
  agent: Span,
  extraRoots: readonly Span[],
  adopted: readonly Span[],
  notes: Notes,
): void {
  if (!tree.byId.has(agent.spanId)) {
    notes.add(
      `agent span ${agent.spanId} is missing; the run is rebuilt from the ${extraRoots.length} span(s) under it`,
    )
  }
  if (agent.parentSpanId && !tree.byId.has(agent.parentSpanId)) {
    notes.add(`parent span ${agent.parentSpanId} of the agent span is missing`)
  }
  if (adopted.length > 3) {
    notes.add(`${adopted.length} spans have missing parents; attached by time`)
  } else {
    for (const orphan of adopted) {
      notes.add(
        `span ${orphan.spanId} (${orphan.name}) has a missing parent ${orphan.parentSpanId}; attached by time`,
      )
    }
  }
  if (compareNanos(agent.endTimeUnixNano, agent.startTimeUnixNano) < 0 || agent.endTimeUnixNano === '0') {
    notes.add('agent span has not ended')
  }
}

/** Who ran, as the run's spans record it; a stand-in for a missing agent span knows only the conversation its spans name. */
function recordedIdentity(
  tree: SpanTree,
  agent: Span,
  extraRoots: readonly Span[],
  reader: ConventionReader,
) {
  if (tree.byId.has(agent.spanId)) return reader.identity(agent, tree)
  return {
    conversationId: extraRoots.map((root) => readerFor(root)?.identity(root).conversationId).find(Boolean),
  }
}

/**
 * An identity whose name would only be inferred from the run span's name (`FunctionAgent.run`, a
 * class) takes the name a field of its steps' values gives (`current_agent_name='x'`), if any.
 */
function namedInSteps(identity: AgentIdentity, agent: Span, tree: SpanTree): AgentIdentity {
  if (identity.agentName !== undefined || identity.spanName === undefined) return identity
  const agentName = agentNameInValuesBelow(agent, tree)
  return agentName === undefined ? identity : { ...identity, agentName }
}

/** A run's input: the new messages just after its start, the remembered ones just before it. */
function runInput(
  conversation: { input: ChatMessage[]; remembered: ChatMessage[]; system: string[] },
  spanId: string,
  startMs: number,
  context: MessageContext,
): AgentRun['input'] {
  const { remembered } = conversation
  return {
    inputMessages: toMastraMessages(conversation.input, {
      idPrefix: `${spanId}-input`,
      createdAt: (index) => new Date(startMs + index),
      context,
    }),
    rememberedMessages: toMastraMessages(remembered, {
      idPrefix: `${spanId}-remembered`,
      createdAt: (index) => new Date(startMs - remembered.length + index),
      context,
    }),
    systemMessages: conversation.system.map((content) => ({ role: 'system', content })),
    taggedSystemMessages: {},
  }
}

function buildRun(
  tree: SpanTree,
  agent: Span,
  {
    extraRoots,
    adopted,
    parentRun,
    isRun,
    reader = readerFor(agent) ?? genericReader,
    pseudoTools,
  }: RunPlace,
): AgentRun {
  const notes = new Notes()
  noteGaps(tree, agent, extraRoots, adopted, notes)

  const metadata = reader.metadata(agent, notes)
  // Another instrumentation's agent span of the same invocation fills in what this one lacks.
  const twins = twinAgentSpans(tree, agent, isRun)
  const identity = resolveIdentity(
    namedInSteps(withTwins(recordedIdentity(tree, agent, extraRoots, reader), twins, tree), agent, tree),
    metadata,
  )
  const unfold = reader.unfoldModelCalls && ((model: Span) => reader.unfoldModelCalls!(model, tree, notes))
  const runSpans = collectRunSpans(tree, agent, isRun, extraRoots, unfold, pseudoTools)
  const { models } = runSpans
  const unwrap = (prompt: ChatMessage[] | undefined) =>
    prompt && reader.unwrapPrompt ? reader.unwrapPrompt(prompt) : prompt
  const instructions = reader.instructions(agent, notes)
  // Each model call's output is read once for the run: tool calls keep values of it, texts peek.
  const outputs = new ModelOutputs()
  const prompt = unwrap(firstPrompt(models, notes, outputs))
  const called = new CallingToolCall(tree, agent, parentRun?.spanId)
  const conversation = splitConversation(
    {
      instructions,
      agentInput: agentInputOf(agent, reader, prompt, notes, tree, called),
      firstPrompt: prompt,
    },
    notes,
  )
  const recorded = instructions !== undefined
  unwrapTemplates(agent, { recorded, agentName: identity.agentName }, conversation, notes)
  // A run without model-call spans (a remote agent) may still report its tool calls itself.
  const toolCalls = collectToolCalls(
    models.length > 0 ? runSpans : { ...runSpans, models: [agent] },
    notes,
    outputs,
  )
  // A run failed when its agent span failed in either instrumentation (a span's failure read by its reader).
  const failed = [agent, ...twins].some((span) =>
    runFailed(span, toolCalls, models, notes, span === agent ? reader : readerFor(span)),
  )
  const texts = stepTexts(runSpans, notes, outputs)
  const finalText = pickFinalText(
    reader,
    agent,
    { models, stepTexts: texts, failed, outputs, called, prompt, instructions },
    notes,
  )

  const requestContext = buildRequestContext(agent, metadata)
  const resourceId = stringOf(metadata.resourceId) ?? stringOf(requestContext?.userId)
  const context: MessageContext = {}
  if (identity.conversationId) context.threadId = identity.conversationId
  if (resourceId) context.resourceId = resourceId
  const startMs = nanosToMillis(agent.startTimeUnixNano)
  const endMs = Math.max(nanosToMillis(agent.endTimeUnixNano), startMs + conversation.input.length)

  // Keys in this order, each set only when known; no spreads (README, "Cost and hostile input").
  const run = { traceId: agent.traceId, spanId: agent.spanId } as AgentRun
  if (parentRun) run.parentRunSpanId = parentRun.spanId
  if (identity.agentId) run.agentId = identity.agentId
  if (identity.agentName) run.agentName = identity.agentName
  run.convention = reader.convention
  run.status = failed ? 'error' : 'ok'
  if (identity.conversationId) run.conversationId = identity.conversationId
  run.startTimeUnixNano = agent.startTimeUnixNano
  run.endTimeUnixNano = agent.endTimeUnixNano
  run.input = runInput(conversation, agent.spanId, startMs, context)
  run.output = [
    buildOutputMessage({
      toolCalls,
      stepTexts: texts,
      finalText,
      finalStep: runSpans.steps.length > 0 ? runSpans.steps.length - 1 : undefined,
      id: `${agent.spanId}-output-0`,
      createdAt: new Date(endMs),
      context,
    }),
  ]
  if (requestContext) run.requestContext = requestContext
  run.recorded = notes.recorded()
  const inseparable = notes.inseparable()
  if (inseparable) run.inseparable = inseparable
  const list = notes.list()
  if (list.length > 0) run.notes = list
  return run
}
