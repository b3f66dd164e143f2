import type { Span } from '../../model/index.ts'
import { readString } from '../read-attribute.ts'
import { exceptionMessage } from '../span-error.ts'
import { type SpanTree, walkBelow } from '../span-tree.ts'
import type { ConventionReader, SpanRole } from './convention-reader.ts'
import { kind, openInferenceReader, roleOfKind } from './openinference.ts'

/** The instrumentation scope of `openinference-instrumentation-llama-index`. */
const SCOPE = 'openinference.instrumentation.llama_index'

/** A workflow's run (`FunctionAgent.run`, `AgentWorkflow.run`, `ReActAgent.run`): the agent candidate. */
const isWorkflowRun = (span: Span) =>
  span.name.endsWith('.run') && !span.name.startsWith('BaseWorkflowAgent.')

/** `OpenAI._prepare_chat_with_tools`: an LLM-kind span that only builds the request (no call, no messages). */
const isRequestBuilder = (span: Span) => span.name.endsWith('._prepare_chat_with_tools')

/**
 * LlamaIndex agent workflows traced by OpenInference. A `FunctionAgent.run` / `AgentWorkflow.run`
 * CHAIN heads the run (also when it runs inside a tool); its `input.value` is the workflow's
 * state and its `output.value` the Python repr of the `StopEvent`, so neither is read: input,
 * history and instructions come from the first model call's messages, the final text from the
 * last one's. The agent's name is only in the reprs of the workflow's events
 * (`current_agent_name='…'`) on the run's step spans, read for every run named after a class
 * (`namedInSteps`, extract-agent-runs.ts). Tool results are `ToolOutput`s, unwrapped for every
 * convention (`tool-value.ts`).
 */
export const llamaIndexReader: ConventionReader = {
  ...openInferenceReader,
  matches: (span) => span.scope.name === SCOPE && openInferenceReader.matches(span),
  role(span): SpanRole {
    if (kind(span) === 'LLM' && isRequestBuilder(span)) return 'other'
    return roleOfKind(span, (chain) => (isWorkflowRun(chain) ? 'agent' : 'other'))
  },
  confirmRun: (span, tree) => kind(span) !== 'CHAIN' || callsModel(span, tree),
  identity: (span) => ({
    agentName: readString(span.attributes, 'agent.name') || undefined,
    spanName: span.name,
    conversationId: readString(span.attributes, 'session.id'),
  }),
  agentInput: () => undefined,
  agentOutput: () => undefined,
  toolError: exceptionMessage,
}

/** Whether a workflow run calls a model itself (not only inside a nested run). */
function callsModel(run: Span, tree: SpanTree): boolean {
  return walkBelow(tree, run, (span) => {
    if (span !== run && isWorkflowRun(span)) return 'skip'
    return kind(span) === 'LLM' && !isRequestBuilder(span) ? 'stop' : undefined
  })
}
