import type { MastraDBMessage, MastraMessagePart } from '../model/message.ts'

/**
 * Message part types Mastra knows, for autocomplete; any other string is accepted too.
 * Entries are prefixes: `'data-'` matches every data part, `'source'` also `'source-document'`.
 */
export type MastraPartType =
  | 'text'
  | 'tool-invocation'
  | 'step-start'
  | 'reasoning'
  | 'image'
  | 'file'
  | 'source'
  | 'source-document'
  | 'data-'
  | 'data-om-'
  | 'data-om-status'
  | 'data-om-observation-start'
  | 'data-om-observation-end'
  | 'data-om-observation-failed'
  | 'data-om-buffering-start'
  | 'data-om-buffering-end'
  | 'data-om-buffering-failed'
  | 'data-om-activation'
  | 'data-om-thread-update'
  | 'data-workspace-'
  | 'data-workspace-metadata'
  | 'data-sandbox-'
  | 'data-sandbox-stdout'
  | 'data-sandbox-stderr'
  | 'data-sandbox-exit'
  | 'data-sandbox-command'
  | 'data-tool-'
  | 'data-tool-call-approval'
  | 'data-tool-call-suspended'
  | 'data-system-reminder'
  | 'data-signal'
  | 'data-user-message'
  | 'data-tripwire'
  | 'data-structured-output'
  | (string & {})

/** Declarative options of {@link filterRun}, as Mastra's `FilterRunOptions`. */
export interface FilterRunOptions {
  /**
   * Keep only messages with a part whose `type` starts with one of these prefixes. Applies to
   * `input.rememberedMessages` and an array `output`. A message without tool calls and without
   * a matching part is dropped too, text-only messages included (Mastra's code, not its docs).
   */
  partTypes?: MastraPartType[]
  /**
   * Keep only those messages with tool calls that call a tool whose name starts with one of
   * these prefixes. Messages without tool calls are unaffected.
   */
  toolNames?: string[]
  /** Keep at most the last N remembered messages, after filtering (0 or unset: no limit). */
  maxRememberedMessages?: number
  /** Keep at most the last N output messages, after filtering (0 or unset: no limit). */
  maxOutputMessages?: number
  /** Set `requestContext` to `undefined`. */
  dropRequestContext?: boolean
  /** Set `expectedTrajectory` to `undefined`. */
  dropExpectedTrajectory?: boolean
  /** Set `groundTruth` to `undefined`. */
  dropGroundTruth?: boolean
}

/** The fields of a scorer run that {@link filterRun} reads or replaces. */
export type FilterableRun = {
  input?: unknown
  output: unknown
  groundTruth?: unknown
  expectedTrajectory?: unknown
  requestContext?: unknown
}

/** A synchronous `prepareRun` that returns a filtered shallow copy of its run. */
export type FilterRunFunction = <TRun extends FilterableRun>(run: TRun) => TRun

/**
 * Builds a `prepareRun` for `createScorer` from declarative options, with the exact behaviour
 * of Mastra's `filterRun`: it trims remembered and output messages and drops unused fields,
 * never touching `inputMessages`, `systemMessages` or `taggedSystemMessages`, nor the run given.
 */
export function filterRun(options: FilterRunOptions): FilterRunFunction {
  const hasMessageFilters = Boolean(options.partTypes || options.toolNames)

  return <TRun extends FilterableRun>(run: TRun): TRun => {
    const result: Record<string, unknown> = { ...run }

    if (options.dropRequestContext) result.requestContext = undefined
    if (options.dropExpectedTrajectory) result.expectedTrajectory = undefined
    if (options.dropGroundTruth) result.groundTruth = undefined

    const input = result.input
    if (input && typeof input === 'object' && 'rememberedMessages' in input) {
      const agentInput = input as { rememberedMessages?: MastraDBMessage[] }
      let remembered = agentInput.rememberedMessages ?? []
      if (hasMessageFilters) remembered = filterMessages(remembered, options)
      remembered = keepLast(remembered, options.maxRememberedMessages)
      result.input = { ...agentInput, rememberedMessages: remembered }
    }

    if (Array.isArray(result.output)) {
      let output = result.output as MastraDBMessage[]
      if (hasMessageFilters) output = filterMessages(output, options)
      result.output = keepLast(output, options.maxOutputMessages)
    }

    return result as TRun
  }
}

/** Mastra's limit rule: a falsy limit (unset or 0) means no limit. */
function keepLast(messages: MastraDBMessage[], limit: number | undefined): MastraDBMessage[] {
  return limit && messages.length > limit ? messages.slice(-limit) : messages
}

function matchesPrefix(value: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => value.startsWith(prefix))
}

function hasPartOfType(parts: MastraMessagePart[], partTypes: readonly string[]): boolean {
  return parts.some((part) => matchesPrefix(part.type, partTypes))
}

function callsTool(parts: MastraMessagePart[], toolNames: readonly string[]): boolean {
  return parts.some((part) => {
    if (part.type !== 'tool-invocation') return false
    const name = part.toolInvocation?.toolName
    return name != null && matchesPrefix(name, toolNames)
  })
}

function filterMessages(messages: MastraDBMessage[], options: FilterRunOptions): MastraDBMessage[] {
  const { partTypes, toolNames } = options
  return messages.filter((message) => {
    const parts: unknown = message?.content?.parts
    if (!Array.isArray(parts)) return true
    const typedParts = parts as MastraMessagePart[]

    if (!typedParts.some((part) => part.type === 'tool-invocation')) {
      return partTypes ? hasPartOfType(typedParts, partTypes) : true
    }
    if (toolNames && !callsTool(typedParts, toolNames)) return false
    if (partTypes && !hasPartOfType(typedParts, partTypes)) return false
    return true
  })
}
