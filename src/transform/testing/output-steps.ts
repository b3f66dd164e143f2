import type { AgentRun, ToolInvocation } from '../../model/index.ts'

/** One step of a run's output: its texts and tool-call ids, in order. */
export interface OutputStep {
  texts: string[]
  toolCallIds: string[]
}

/** The output message of a run laid out as steps, split at its `step-start` parts (none when it is empty). */
export function outputSteps(run: AgentRun): OutputStep[] {
  const parts = run.output[0]!.content.parts
  if (parts.length === 0) return []
  const steps: OutputStep[] = [{ texts: [], toolCallIds: [] }]
  for (const part of parts) {
    const step = steps[steps.length - 1]!
    if (part.type === 'step-start') steps.push({ texts: [], toolCallIds: [] })
    else if (part.type === 'text') step.texts.push(part.text)
    else if (part.type === 'tool-invocation') step.toolCallIds.push(part.toolInvocation.toolCallId)
  }
  return steps
}

/** The tool invocations of a run's output, in order. */
export function toolInvocations(run: AgentRun): ToolInvocation[] {
  return run.output[0]!.content.parts.flatMap((part) =>
    part.type === 'tool-invocation' ? [part.toolInvocation] : [],
  )
}
