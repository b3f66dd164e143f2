import { createScorer, notScorable } from 'tracescore'

/** Share of the run's tool calls that returned a result rather than an error (not scorable without tools). */
export const toolSuccessScorer = createScorer({
  id: 'tool-success',
  description: 'Share of tool calls that succeeded',
  type: 'agent',
  // Without the results recorded, a call that returned looks like one still waiting: no guess.
  requires: ['toolResults'],
})
  .preprocess(({ run }) => {
    const calls = run.output.flatMap((message) =>
      message.content.parts.flatMap((part) => (part.type === 'tool-invocation' ? [part.toolInvocation] : [])),
    )
    return {
      calls: calls.length,
      failed: calls.filter((c) => c.state === 'output-error' || c.isError).map((c) => c.toolName),
    }
  })
  .generateScore(({ results }) => {
    const { calls, failed } = results.preprocessStepResult
    if (calls === 0) return notScorable('the run made no tool call')
    return (calls - failed.length) / calls
  })
  .generateReason(({ results, score }) => {
    const { calls, failed } = results.preprocessStepResult
    return failed.length === 0
      ? `All ${calls} tool calls succeeded.`
      : `${failed.length} of ${calls} tool calls failed (${failed.join(', ')}); score ${score}.`
  })
