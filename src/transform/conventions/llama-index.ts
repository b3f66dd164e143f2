import type { Span } from '../../model/index.ts'
import { isRecord, readString } from '../read-attribute.ts'
import { exceptionMessage } from '../span-error.ts'
import { type SpanTree, walkBelow } from '../span-tree.ts'
import { type ConventionReader, changedCall, type SpanRole } from './convention-reader.ts'
import { kind, openInferenceReader, roleOfKind } from './openinference.ts'

/** The instrumentation scope of `openinference-instrumentation-llama-index`. */
const SCOPE = 'openinference.instrumentation.llama_index'

/** A workflow's run (`FunctionAgent.run`, `AgentWorkflow.run`, `ReActAgent.run`): the agent candidate. */
const isWorkflowRun = (span: Span) =>
  span.name.endsWith('.run') && !span.name.startsWith('BaseWorkflowAgent.')

/** `OpenAI._prepare_chat_with_tools`: an LLM-kind span that only builds the request (no call, no messages). */
const isRequestBuilder = (span: Span) => span.name.endsWith('._prepare_chat_with_tools')

/** `current_agent_name='<name>'` in the repr of a workflow event (`AgentInput`, `AgentOutput`, …). */
const AGENT_NAME = /current_agent_name='([^'\\]*)'/

/**
 * LlamaIndex agent workflows traced by OpenInference. A `FunctionAgent.run` / `AgentWorkflow.run`
 * CHAIN heads the run (also when it runs inside a tool); its `input.value` is the workflow's
 * state and its `output.value` the Python repr of the `StopEvent`, so neither is read: input,
 * history and instructions come from the first model call's messages, the final text from the
 * last one's. The agent's name is only in the reprs of the workflow's events
 * (`current_agent_name='…'`) on the run's step spans. Tool spans record the call as
 * `{"kwargs": {…}}` and the result as a `ToolOutput` (`raw_output` is the returned value).
 */
export const llamaIndexReader: ConventionReader = {
  ...openInferenceReader,
  matches: (span) => span.scope.name === SCOPE && openInferenceReader.matches(span),
  role(span): SpanRole {
    if (kind(span) === 'LLM' && isRequestBuilder(span)) return 'other'
    return roleOfKind(span, (chain) => (isWorkflowRun(chain) ? 'agent' : 'other'))
  },
  confirmRun: (span, tree) => kind(span) !== 'CHAIN' || callsModel(span, tree),
  identity(span, tree) {
    const name = readString(span.attributes, 'agent.name') ?? (tree ? agentNameBelow(span, tree) : undefined)
    return { agentName: name || undefined, conversationId: readString(span.attributes, 'session.id') }
  },
  agentInput: () => undefined,
  agentOutput: () => undefined,
  toolCall(span, notes) {
    const call = openInferenceReader.toolCall(span, notes)
    const output = call.result
    return isRecord(output) && 'raw_output' in output && 'is_error' in output
      ? changedCall(call, { result: output.raw_output })
      : call
  },
  toolError: exceptionMessage,
}

/** Whether a workflow run calls a model itself (not only inside a nested run). */
function callsModel(run: Span, tree: SpanTree): boolean {
  return walkBelow(tree, run, (span) => {
    if (span !== run && isWorkflowRun(span)) return 'skip'
    return kind(span) === 'LLM' && !isRequestBuilder(span) ? 'stop' : undefined
  })
}

/**
 * The agent named by the earliest workflow event repr among the run's step spans (its children),
 * in their output or input (the instrumentation cuts reprs at 200 characters, so a long prompt may
 * cut the name off some of them).
 */
function agentNameBelow(run: Span, tree: SpanTree): string | undefined {
  for (const step of tree.children(run.spanId)) {
    for (const key of ['output.value', 'input.value']) {
      const text = readString(step.attributes, key)
      const found = text === undefined ? null : AGENT_NAME.exec(text)
      if (found) return found[1]
    }
  }
  return undefined
}
