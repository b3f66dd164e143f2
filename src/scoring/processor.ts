/**
 * The judge's processors, as Mastra defines them (`@mastra/core/processors`): input and output
 * processors transform the judge's messages and answer; error processors (`processAPIError`)
 * decide whether a failed judge request is tried again.
 */

/** A judge message as the `ai` SDK takes it. */
export interface JudgeMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: unknown
}

/** What `processInput` receives: the judge's messages (system first) before the model sees them. */
export interface ProcessInputArgs {
  messages: JudgeMessage[]
  abort: (reason?: string) => never
}

/** What `processOutputResult` receives: the judge's answer before it is parsed. */
export interface ProcessOutputResultArgs {
  /** The judge's answer text (for structured steps, the raw JSON text before parsing). */
  text: string
  abort: (reason?: string) => never
}

/** What `processAPIError` receives when a judge model call failed. */
export interface ProcessAPIErrorArgs {
  error: unknown
  messages: JudgeMessage[]
  /** Number of retries already made for this request (0 on the first failure). */
  retryCount: number
  abortSignal?: AbortSignal
  abort: (reason?: string) => never
}

/** `processAPIError`'s answer: `retry: true` asks for the failed call to be made again. */
export interface ProcessAPIErrorResult {
  retry: boolean
}

/** A judge processor. Every method is optional; `id` names it in errors and logs. */
export interface Processor {
  readonly id: string
  readonly name?: string
  processInput?(args: ProcessInputArgs): JudgeMessage[] | undefined | Promise<JudgeMessage[] | undefined>
  processOutputResult?(args: ProcessOutputResultArgs): string | undefined | Promise<string | undefined>
  // Mastra's processors return nothing when they do not ask for a retry; `void` keeps them assignable.
  processAPIError?(
    args: ProcessAPIErrorArgs,
    // biome-ignore lint/suspicious/noConfusingVoidType: Mastra's Processor signature (async processors resolve to void)
  ): ProcessAPIErrorResult | undefined | void | Promise<ProcessAPIErrorResult | undefined | void>
}
