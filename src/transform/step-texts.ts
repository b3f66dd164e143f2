import { messageText } from './chat-message.ts'
import { readerFor } from './detect-convention.ts'
import type { Notes } from './notes.ts'
import type { RunSpans } from './run-spans.ts'

/**
 * The text the model wrote in each step of a run, by step index ('' for a step without text):
 * the step span's recorded output where the convention records one (Mastra `model_step`), else
 * the text of the model calls in that step. Text a model writes alongside its tool calls lives
 * here, so the output can keep it in step order.
 */
export function stepTexts(run: RunSpans, notes: Notes): string[] {
  if (run.hasStepSpans) {
    const texts = run.steps.map((step) => assistantText(readerFor(step)?.modelOutput(step, notes) ?? []))
    if (texts.some((text) => text.length > 0)) return texts
  }
  const byStep = new Map<number, string[]>()
  for (const model of run.models) {
    const step = run.stepOf(model)
    if (step === undefined) continue
    const text = assistantText(readerFor(model)?.modelOutput(model, notes) ?? [])
    if (text.length === 0) continue
    const list = byStep.get(step)
    if (list) list.push(text)
    else byStep.set(step, [text])
  }
  return run.steps.map((_, index) => byStep.get(index)?.join('\n') ?? '')
}

function assistantText(messages: Parameters<typeof messageText>[0][]): string {
  return messages
    .filter((message) => message.role === 'assistant')
    .map(messageText)
    .filter((text) => text.length > 0)
    .join('\n')
}
