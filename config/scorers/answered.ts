import { createScorer } from 'tracescore'

/**
 * 1 when the agent ended its turn with a non-empty text answer, 0 when it did not; not scorable when
 * the trace did not record the final text.
 */
export const answeredScorer = createScorer({
  id: 'answered',
  description: 'Did the agent give the user a final text answer?',
  type: 'agent',
  // A run whose trace did not record the answer (content capture off) is not scorable, not a 0.
  requires: ['finalText'],
})
  .preprocess(({ run }) => {
    const last = run.output.at(-1)
    const text = last?.content.content ?? last?.content.parts.findLast((p) => p.type === 'text')?.text ?? ''
    return { text: text.trim() }
  })
  .generateScore(({ results }) => (results.preprocessStepResult.text.length > 0 ? 1 : 0))
  .generateReason(({ results, score }) =>
    score === 1
      ? `The agent answered (${results.preprocessStepResult.text.length} characters).`
      : 'The agent ended without a text answer.',
  )
