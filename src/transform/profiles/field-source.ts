import type { Attributes, AttributeValue, RunPart, Span } from '../../model/index.ts'
import type { ChatMessage } from '../chat-message.ts'
import { readingScope } from '../conventions/generic.ts'
import { flattenedDicts } from '../conventions/openinference.ts'
import { indexedMessages } from '../conventions/traceloop.ts'
import type { Notes } from '../notes.ts'
import { parseMessages, parsePromptInput } from '../parse-messages.ts'
import { requestMessages, responseMessages } from '../provider-wire.ts'
import { parseJsonValue } from '../read-attribute.ts'
import type { SpanTree } from '../span-tree.ts'
import { evaluateJsonPath, type JsonPath, parseJsonPath } from './json-path.ts'
import type { FieldSource, Shape } from './profile-schema.ts'
import { compileCapture } from './safe-pattern.ts'

/** One place a field may live, compiled: where to look and how to parse what is there. */

/** How a note names a part. */
const PART_LABEL: Record<RunPart, string> = {
  input: 'input messages',
  system: 'system instructions',
  finalText: 'final text',
  toolArguments: 'tool arguments',
  toolResults: 'tool results',
}

/** The parts of a run a message field holds (`notRead`: they are in the trace, not read). */
const PARTS_OF_FIELD: Record<string, readonly RunPart[]> = {
  prompt: ['input', 'system'],
  input: ['input'],
  instructions: ['system'],
  answer: ['finalText'],
  output: ['finalText'],
}

export interface CompiledSource {
  attribute: string
  path?: JsonPath
  event?: string
  ancestors?: boolean
  /** The field is there in a form not read (`notRead` of the profile): noted, never parsed. */
  notRead?: string
  /** A text read from the span's name instead of an attribute. */
  nameGroup?: (name: string) => string | undefined
  shape: Shape
  /** How `inspect` names the source: `llm.request $.messages as provider-request`. */
  label: string
}

/** Compiles a field's sources (paths parsed: throws on a bad path), with the field's default shape. */
export function compileSources(source: FieldSource, defaultShape: Shape): CompiledSource[] {
  const list = Array.isArray(source) ? source : [source]
  return list.map((item) => {
    if (typeof item !== 'string' && 'spanName' in item) {
      const label = `span name ${item.spanName} as ${defaultShape}`
      return { attribute: '', nameGroup: compileCapture(item.spanName), shape: defaultShape, label }
    }
    const spec = typeof item === 'string' ? { attribute: item } : item
    const shape = spec.shape ?? defaultShape
    const where = `${spec.event ? `event ${spec.event} ` : ''}${spec.ancestors ? '(or above) ' : ''}`
    const label = `${where}${spec.attribute}${spec.path ? ` ${spec.path}` : ''} as ${shape}`
    const compiled: CompiledSource = { attribute: spec.attribute, shape, label }
    if (spec.path) compiled.path = parseJsonPath(spec.path)
    if (spec.event) compiled.event = spec.event
    if (spec.ancestors) compiled.ancestors = true
    if ('notRead' in spec && spec.notRead) compiled.notRead = spec.notRead
    return compiled
  })
}

/**
 * Attribute values parsed for JSON paths, per span and key, while one call into the transform
 * reads ({@link readingScope}): several fields may read one value. Outside one, parsed each time.
 * Weak: the last call's spans are not kept alive until the next call.
 */
let parsedValues: { scope: object; byAttributes: WeakMap<Attributes, Map<string, unknown>> } | undefined

function parsed(attributes: Attributes, key: string, value: AttributeValue): unknown {
  const scope = readingScope()
  if (scope === undefined) return parseJsonValue(value)
  if (parsedValues?.scope !== scope) parsedValues = { scope, byAttributes: new WeakMap() }
  let byKey = parsedValues.byAttributes.get(attributes)
  if (!byKey) {
    byKey = new Map()
    parsedValues.byAttributes.set(attributes, byKey)
  }
  if (byKey.has(key)) return byKey.get(key)
  const result = parseJsonValue(value)
  byKey.set(key, result)
  return result
}

/** The attributes a source reads: the span's, or its first event of the given name's. */
function attributesOf(span: Span, source: CompiledSource): Attributes | undefined {
  if (!source.event) return span.attributes
  for (const event of span.events) if (event.name === source.event) return event.attributes
  return undefined
}

/** The raw value at a source (after its JSON path); undefined when absent. */
function rawValue(span: Span, source: CompiledSource, notes: Notes): unknown {
  if (source.nameGroup) return source.nameGroup(span.name)
  const attributes = attributesOf(span, source)
  if (!attributes) return undefined
  const value = attributes[source.attribute]
  if (value === undefined || value === null) return undefined
  if (!source.path) return value
  const json = parsed(attributes, source.attribute, value)
  if (typeof json === 'string' && json === value) {
    notes.add(`${source.attribute} of span ${span.spanId} is not JSON (profile path ${source.label})`)
    return undefined
  }
  return evaluateJsonPath(source.path, json)
}

function textMessages(value: unknown, role: ChatMessage['role']): ChatMessage[] | undefined {
  if (typeof value === 'string')
    return value.length > 0 ? [{ role, parts: [{ type: 'text', text: value }] }] : undefined
  if (Array.isArray(value) && value.every((item) => typeof item === 'string'))
    return value.map((text: string) => ({ role, parts: [{ type: 'text', text }] }))
  return undefined
}

/** A JSON value of a string attribute (no path): parsed when it holds JSON. */
function jsonOf(value: unknown): unknown {
  return typeof value === 'string' ? parseJsonValue(value) : value
}

/** Messages from a source, parsed by its shape; `role` for plain text. */
function messagesFrom(
  span: Span,
  source: CompiledSource,
  notes: Notes,
  role: ChatMessage['role'],
  field: string,
): ChatMessage[] | undefined {
  if (source.shape === 'openinference' || source.shape === 'indexed') {
    const attributes = attributesOf(span, source)
    if (!attributes) return undefined
    if (source.shape === 'indexed') return indexedMessages(attributes, source.attribute)
    const dicts = flattenedDicts(attributes, source.attribute)
    return dicts ? parseMessages(dicts) : undefined
  }
  const raw = rawValue(span, source, notes)
  if (raw === undefined) return undefined
  const value = source.path ? raw : jsonOf(raw)
  if (source.notRead) {
    const name = field.slice(field.lastIndexOf('.') + 1)
    const parts = PARTS_OF_FIELD[name]
    const where = `recorded only as ${source.notRead} (${source.attribute}), not read`
    // A part found missing later is held here all the same: the run says so, not "not recorded".
    if (parts) notes.flattened(parts, `${parts.map((part) => PART_LABEL[part]).join(' and ')} ${where}`)
    else notes.add(`${name} of span ${span.spanId} ${where}`)
    return undefined
  }
  let messages: ChatMessage[] | undefined
  if (source.shape === 'text' || source.shape === 'string') messages = textMessages(raw, role)
  else if (source.shape === 'messages') messages = parseMessages(value)
  else if (source.shape === 'prompt') messages = parsePromptInput(value)
  else if (source.shape === 'provider-request') messages = requestMessages(value)
  else if (source.shape === 'provider-response') messages = responseMessages(value)
  else messages = textMessages(value, role) ?? parseMessages(value)
  if (!messages) notes.add(`${source.label} of span ${span.spanId} could not be read as messages`)
  return messages
}

/** Which source gave which field of which span, while {@link withSourceRecorder} runs (`inspect`). */
let recorder: ((span: Span, field: string, label: string) => void) | undefined

/** Runs `work` with every field a profile reads reported to `record` (for `inspect --profile`). */
export function withSourceRecorder<T>(
  record: (span: Span, field: string, label: string) => void,
  work: () => T,
): T {
  const before = recorder
  recorder = record
  try {
    return work()
  } finally {
    recorder = before
  }
}

/** A message field: the first source that yields messages. */
export function readMessages(
  span: Span,
  sources: readonly CompiledSource[],
  notes: Notes,
  role: ChatMessage['role'],
  field: string,
  tree?: SpanTree,
): ChatMessage[] | undefined {
  for (const source of sources) {
    let messages = messagesFrom(span, source, notes, role, field)
    if (!messages?.length && source.ancestors) {
      for (const parent of above(span, tree)) {
        messages = messagesFrom(parent, source, notes, role, field)
        if (messages?.length) break
      }
    }
    if (messages && messages.length > 0) {
      recorder?.(span, field, source.label)
      return messages
    }
  }
  return undefined
}

/** A value field (tool arguments, result): the first source present, JSON parsed unless `string`. */
export function readValue(
  span: Span,
  sources: readonly CompiledSource[],
  notes: Notes,
  field: string,
): { found: boolean; value: unknown } {
  for (const source of sources) {
    const raw = rawValue(span, source, notes)
    if (raw === undefined) continue
    recorder?.(span, field, source.label)
    if (source.shape === 'string' || source.shape === 'text')
      return { found: true, value: stringOf(raw) ?? raw }
    if (source.path || typeof raw !== 'string') return { found: true, value: raw }
    return {
      found: true,
      value: parseJsonValue(raw, { notes, what: `${source.attribute} of span ${span.spanId}` }),
    }
  }
  return { found: false, value: undefined }
}

function stringOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.length > 0 ? value : undefined
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return undefined
}

/** Spans above `span`, nearest first, at most {@link MAX_ANCESTORS}. */
function* above(span: Span, tree: SpanTree | undefined): Generator<Span> {
  let current = tree?.parentOf(span)
  for (let depth = 0; current && depth < MAX_ANCESTORS; depth++) {
    yield current
    current = tree!.parentOf(current)
  }
}

/** How far up `ancestors` sources look. */
const MAX_ANCESTORS = 32

/**
 * A text field (agent name, ids): the first source that holds a string, number or boolean; with
 * `tree`, an `ancestors` source also looks on the spans above.
 */
export function readText(
  span: Span,
  sources: readonly CompiledSource[],
  notes: Notes,
  field: string,
  tree?: SpanTree,
): string | undefined {
  for (const source of sources) {
    let text = stringOf(rawValue(span, source, notes))
    if (text === undefined && source.ancestors) {
      for (const parent of above(span, tree)) {
        text = stringOf(rawValue(parent, source, notes))
        if (text !== undefined) break
      }
    }
    if (text !== undefined) {
      recorder?.(span, field, source.label)
      return text
    }
  }
  return undefined
}
