import { createScorer, fenceUntrusted, type JudgeConfig } from 'tracescore'

/** Text of a message (its text mirror, else its last text part). */
function textOf(
  message: { content: { content?: string; parts: { type: string; text?: string }[] } } | undefined,
) {
  if (!message) return ''
  return message.content.content ?? message.content.parts.findLast((p) => p.type === 'text')?.text ?? ''
}

/**
 * An LLM-judge scorer: asks the judge how well the final answer helps with the user's request.
 * The trace content is fenced off as data before it reaches the judge (`fenceUntrusted` labels
 * each piece; the pipeline fences the run's text in every judge prompt anyway).
 */
export function createHelpfulnessScorer(model: JudgeConfig['model']) {
  return createScorer({
    id: 'helpfulness',
    description: 'How well the final answer helps with the user request (LLM judge)',
    type: 'agent',
    judge: {
      model,
      // The judge request names the exact fence markers in the system message by itself.
      instructions:
        'You are a strict evaluator of AI assistant answers. Score from 0 (useless) to 1 (fully helpful).',
    },
  })
    .generateScore({
      description: 'Score the helpfulness of the answer',
      createPrompt: ({ run }) =>
        [
          'Rate how helpful the assistant answer is for the user request.',
          fenceUntrusted('user request', run.input.inputMessages.map(textOf).join('\n')),
          fenceUntrusted('assistant answer', textOf(run.output.at(-1))),
          'Answer with a JSON object {"score": number between 0 and 1}.',
        ].join('\n\n'),
    })
    .generateReason({
      description: 'Explain the score',
      createPrompt: ({ score }) =>
        `In one sentence, explain why the answer received a helpfulness score of ${score}.`,
    })
}
