import type { Span } from '../../model/index.ts'
import type { ChatMessage } from '../chat-message.ts'
import type {
  AgentIdentity,
  ConventionReader,
  SpanRole,
  ToolSpanCall,
} from '../conventions/convention-reader.ts'
import { Notes } from '../notes.ts'
import { exceptionMessage } from '../span-error.ts'
import type { SpanTree } from '../span-tree.ts'
import { builtinReader } from './builtin-readers.ts'
import { type CompiledSource, compileSources, readMessages, readText, readValue } from './field-source.ts'
import { type Branch, compileBranches, compileMatcher, type SpanTest, spanMatcher } from './matcher.ts'
import type { FieldSource, Profile, Shape } from './profile-schema.ts'

/** Roles in the order a profile's matchers are tried. */
const ROLE_ORDER = ['agent', 'model', 'tool', 'step', 'other'] as const

/**
 * Notes of the reads the seam gives no `Notes` for (identity, status, a tool's error text):
 * dropped, never kept (a service reads spans for days).
 */
const identityNotes = Object.assign(new Notes(), { add() {} }) as Notes

function sources(source: FieldSource | undefined, shape: Shape): CompiledSource[] | undefined {
  return source === undefined ? undefined : compileSources(source, shape)
}

/** A profile's field sources, compiled once. */
function compileFields(profile: Profile) {
  const { agent, model, tool } = profile.fields ?? {}
  return {
    name: sources(agent?.name, 'string'),
    id: sources(agent?.id, 'string'),
    conversationId: sources(agent?.conversationId, 'string'),
    input: sources(agent?.input, 'prompt'),
    output: sources(agent?.output, 'text'),
    instructions: sources(agent?.instructions, 'text'),
    prompt: sources(model?.prompt, 'messages'),
    answer: sources(model?.answer, 'messages'),
    toolId: sources(tool?.id, 'string'),
    toolName: sources(tool?.name, 'string'),
    args: sources(tool?.arguments, 'value'),
    result: sources(tool?.result, 'value'),
    error: sources(tool?.error, 'string'),
    errorMessage: sources(profile.status?.message, 'string'),
  }
}

type Fields = ReturnType<typeof compileFields>

function roleReader(profile: Profile, base: ConventionReader | undefined): (span: Span) => SpanRole {
  const tests: [SpanRole, SpanTest][] = []
  for (const role of ROLE_ORDER) {
    const matcher = profile.roles?.[role]
    if (matcher) tests.push([role, compileMatcher(matcher)])
  }
  return (span) => {
    const { name, attributes } = span
    const scope = span.scope?.name
    for (const [role, test] of tests) if (test(name, scope, attributes)) return role
    return base ? base.role(span) : 'other'
  }
}

function identityReader(fields: Fields, base: ConventionReader | undefined): ConventionReader['identity'] {
  if (!fields.name && !fields.id && !fields.conversationId && base) return base.identity
  // A field the profile names is read from its sources alone; the others are the extended reader's.
  return (span, tree) => {
    const read = (list: CompiledSource[], field: string) => readText(span, list, identityNotes, field, tree)
    const inherited: AgentIdentity = base ? base.identity(span, tree) : {}
    return {
      agentId: fields.id ? read(fields.id, 'agent.id') : inherited.agentId,
      agentName: fields.name ? read(fields.name, 'agent.name') : inherited.agentName,
      conversationId: fields.conversationId
        ? read(fields.conversationId, 'agent.conversationId')
        : inherited.conversationId,
      spanName: inherited.spanName,
    }
  }
}

function toolReader(fields: Fields, base: ConventionReader | undefined): ConventionReader['toolCall'] {
  const { toolId, toolName, args, result } = fields
  if (!toolId && !toolName && !args && !result && base) return base.toolCall
  const whole = toolId && toolName && args && result
  return (span, notes) => {
    const inherited: ToolSpanCall = base && !whole ? base.toolCall(span, notes) : { hasResult: false }
    const value = result ? readValue(span, result, notes, 'tool.result') : undefined
    return {
      toolCallId: toolId ? readText(span, toolId, notes, 'tool.id') : inherited.toolCallId,
      toolName: toolName ? readText(span, toolName, notes, 'tool.name') : inherited.toolName,
      args: args ? readValue(span, args, notes, 'tool.arguments').value : inherited.args,
      result: value ? value.value : inherited.result,
      hasResult: value ? value.found : inherited.hasResult,
      failureInPrompt: inherited.failureInPrompt,
    }
  }
}

/** The status rule: a span that failed though its status is not ERROR. */
function failureReader(profile: Profile, fields: Fields, base: ConventionReader | undefined) {
  const rule = profile.status
  if (!rule || (!rule.exceptionEvent && !rule.attribute)) return base?.failure
  const { exceptionEvent, attribute } = rule
  return (span: Span): string | undefined => {
    const message = () =>
      (fields.errorMessage && readText(span, fields.errorMessage, identityNotes, 'status.message')) ||
      undefined
    if (exceptionEvent && span.events.some((event) => event.name === 'exception'))
      return message() ?? exceptionMessage(span) ?? 'error'
    if (attribute) {
      const value = span.attributes[attribute.key]
      const failed =
        value !== undefined &&
        value !== null &&
        (attribute.equals === undefined || String(value) === String(attribute.equals))
      if (failed)
        return message() ?? (typeof value === 'string' && attribute.equals === undefined ? value : 'error')
    }
    return base?.failure?.(span)
  }
}

function texts(messages: ChatMessage[] | undefined): string[] | undefined {
  if (!messages) return undefined
  const list = messages.flatMap((message) =>
    message.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])),
  )
  return list.length > 0 ? list : undefined
}

/** A compiled profile: its reader, and the branches of the spans it owns (without `owns`: the extended reader's). */
export interface CompiledProfile {
  reader: ConventionReader
  owns?: Branch[]
}

/**
 * A profile as a {@link ConventionReader}: the seam every built-in reader implements, so the
 * transform reads a profile's spans as it reads a built-in convention's. With `extends`, what the
 * profile does not say is the built-in reader's. Throws on a pattern or path the schema let by.
 */
export function compileProfile(profile: Profile): ConventionReader {
  return compileProfileParts(profile).reader
}

/** {@link compileProfile}, with the ownership test apart (for matching many profiles at once). */
export function compileProfileParts(profile: Profile): CompiledProfile {
  const base = profile.extends ? builtinReader(profile.extends) : undefined
  const f = compileFields(profile)
  const owns = profile.owns ? spanMatcher(profile.owns) : undefined
  const messages = (list: CompiledSource[] | undefined, role: ChatMessage['role'], field: string) =>
    list
      ? (span: Span, notes: Notes, tree?: SpanTree) => readMessages(span, list, notes, role, field, tree)
      : undefined
  const reader: ConventionReader = {
    convention: profile.convention ?? base?.convention ?? 'generic',
    matches: owns ?? base!.matches,
    role: roleReader(profile, base),
    identity: identityReader(f, base),
    instructions: f.instructions
      ? (span, notes) => texts(readMessages(span, f.instructions!, notes, 'system', 'agent.instructions'))
      : (base?.instructions ?? (() => undefined)),
    agentInput: messages(f.input, 'user', 'agent.input') ?? base?.agentInput ?? (() => undefined),
    agentOutput: messages(f.output, 'assistant', 'agent.output') ?? base?.agentOutput ?? (() => undefined),
    modelInput: messages(f.prompt, 'user', 'model.prompt') ?? base?.modelInput ?? (() => undefined),
    modelOutput: messages(f.answer, 'assistant', 'model.answer') ?? base?.modelOutput ?? (() => undefined),
    toolCall: toolReader(f, base),
    metadata: base?.metadata ?? (() => ({})),
  }
  const toolError = f.error
    ? (span: Span) => readText(span, f.error!, identityNotes, 'tool.error')
    : base?.toolError
  if (toolError) reader.toolError = toolError
  const failure = failureReader(profile, f, base)
  if (failure) reader.failure = failure
  for (const hook of [
    'confirmRun',
    'runContinuations',
    'headsRun',
    'unfoldModelCalls',
    'unwrapPrompt',
  ] as const) {
    if (base?.[hook]) (reader as unknown as Record<string, unknown>)[hook] = base[hook]
  }
  compiledReaders.add(reader)
  return profile.owns ? { reader, owns: compileBranches(profile.owns) } : { reader }
}

/** Readers compiled from profiles. */
const compiledReaders = new WeakSet<ConventionReader>()

/** Whether a reader was compiled from a profile (for `inspect`: the spans the profiles read). */
export function isProfileReader(reader: ConventionReader): boolean {
  return compiledReaders.has(reader)
}
