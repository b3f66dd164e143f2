import type { ToolInvocation, ToolInvocationPart } from '../../model/index.ts'

/** A tool call that returned `result`, as a run's output carries it. */
export function toolResult(
  toolCallId: string,
  toolName: string,
  args: unknown,
  result: unknown,
): ToolInvocation {
  return { toolCallId, toolName, args, state: 'result', result }
}

/** A tool call that failed with `errorText`, as a run's output carries it. */
export function toolError(
  toolCallId: string,
  toolName: string,
  args: unknown,
  errorText: string,
): ToolInvocation {
  return { toolCallId, toolName, args, state: 'output-error', errorText }
}

/** The output part that holds `toolInvocation`. */
export function invocationPart(toolInvocation: ToolInvocation): ToolInvocationPart {
  return { type: 'tool-invocation', toolInvocation }
}
