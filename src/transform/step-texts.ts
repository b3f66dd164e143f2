import { messageText } from './chat-message.ts'
import type { ModelOutputs } from './model-outputs.ts'
import type { Notes } from './notes.ts'
import type { RunSpans } from './run-spans.ts'

/**
 * The text the model wrote in each step of a run, by step index ('' for a step without text):
 * the step span's recorded output where the convention records one (Mastra `model_step`), else
 * the text of the model calls in that step. Text a model writes alongside its tool calls lives
 * here, so the output can keep it in step order.
 */
export function stepTexts(run: RunSpans, notes: Notes, outputs: ModelOutputs): string[] {
  if (run.hasStepSpans) {
    const texts = run.steps.map((step) => assistantText(outputs.peek(step, notes) ?? []))
    if (texts.some((text) => text.length > 0)) return texts
  }
  const byStep = new Map<number, string[]>()
  for (const model of run.models) {
    const step = run.stepOf(model)
    if (step === undefined) continue
    const text = assistantText(outputs.peek(model, notes) ?? [])
    if (text.length === 0) continue
    const list = byStep.get(step)
    if (list) list.push(text)
    else byStep.set(step, [text])
  }
  return run.steps.map((_, index) => byStep.get(index)?.join('\n') ?? '')
}

/** The texts of the assistant messages (only strings are taken: the messages may be shared). */
function assistantText(messages: readonly Parameters<typeof messageText>[0][]): string {
  return messages
    .filter((message) => message.role === 'assistant')
    .map(messageText)
    .filter((text) => text.length > 0)
    .join('\n')
}
