import type { Span } from '../model/index.ts'
import { isRecord, plainAttributes } from './read-attribute.ts'

/** Shorter texts are too common to be told from a template's own words. */
const MIN_CHARS = 12
/** Values nested deeper than this inside an attribute's JSON are not looked at. */
const MAX_DEPTH = 2

/**
 * Gives `visit` every string an attribute holds long enough to tell from a template's own words:
 * the value, or the strings of its JSON object a few levels down. Nothing is collected or kept:
 * a run looks once ({@link textsInsideTemplate}), and a list per agent span cost more to build and
 * remember than that look.
 */
function eachString(value: unknown, depth: number, visit: (text: string) => void): void {
  if (typeof value === 'string') {
    if (value.length < MIN_CHARS) return
    visit(value)
    if (depth === 0 && value.charCodeAt(0) === 123 /* { */) eachJsonString(value, visit)
  } else if (isRecord(value) && depth <= MAX_DEPTH) {
    for (const key in value) eachString(value[key], depth + 1, visit)
  }
}

const QUOTE = 34
const BACKSLASH = 92
const COLON = 58

/**
 * Gives `visit` the string values of the JSON object `text` that {@link eachString} gives of a
 * parsed record (of its objects up to `MAX_DEPTH` levels down, none inside an array, no key), in
 * the text's order, without parsing it. An agent span's `input.value` is mostly message lists,
 * which are never looked into: parsing them cost more than the rest of the look (issue 27). Text
 * that is not valid JSON (cut short by an exporter's limit) gives the strings before the fault.
 */
export function eachJsonString(text: string, visit: (text: string) => void): void {
  // Objects open down to the one at hand, and containers open inside a part not looked into
  // (an array, an object deeper than MAX_DEPTH): those close before the objects do.
  let level = 0
  let skipped = 0
  for (let at = 0; at < text.length; at++) {
    const char = text.charCodeAt(at)
    if (char === QUOTE) {
      const end = stringEnd(text, at + 1)
      if (end < 0) return
      // A string shorter than MIN_CHARS escaped is shorter unescaped.
      if (skipped === 0 && end - at - 1 >= MIN_CHARS && !isKey(text, end + 1)) {
        const value = unescaped(text, at, end)
        if (value !== undefined && value.length >= MIN_CHARS) visit(value)
      }
      at = end
    } else if (char === 123 /* { */) {
      if (skipped === 0 && level < MAX_DEPTH) level++
      else skipped++
    } else if (char === 91 /* [ */) {
      skipped++
    } else if (char === 125 /* } */ || char === 93 /* ] */) {
      if (skipped > 0) skipped--
      else if (--level <= 0) return
    }
  }
}

/** Where the JSON string whose text starts at `from` ends (its closing quote); -1 if it never does. */
function stringEnd(text: string, from: number): number {
  for (let at = text.indexOf('"', from); at >= 0; at = text.indexOf('"', at + 1)) {
    let backslashes = 0
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return at
  }
  return -1
}

/** Whether the string that ended before `from` is a key: a colon follows it. */
function isKey(text: string, from: number): boolean {
  let at = from
  while (at < text.length && text.charCodeAt(at) <= 32) at++
  return text.charCodeAt(at) === COLON
}

/** The JSON string between the quotes at `open` and `close`, unescaped; undefined if it is not valid. */
function unescaped(text: string, open: number, close: number): string | undefined {
  const raw = text.slice(open + 1, close)
  if (!raw.includes('\\')) return raw
  try {
    return JSON.parse(text.slice(open, close + 1)) as string
  } catch {
    return undefined
  }
}

/** What a run's first prompt holds where a framework's template may wrap what the agent span recorded. */
export interface TemplatedPrompt {
  /** The first prompt's system texts, joined: may wrap the program's instructions. */
  system?: string
  /** The first prompt's one user text: may wrap the user's input as a field of the template. */
  input?: string
}

/**
 * The texts the agent span records inside the first prompt's templates, in one look at the span:
 * - `system`: the program's instructions inside a framework's prompt template, the longest
 *   recorded text (an attribute, or a field of one's JSON: CrewAI's `backstory`) that the system
 *   text holds with more around it. A framework wraps the instructions it was given in its own
 *   words (`You are <role>. <instructions>\nYour personal goal is: …`); the span that received them
 *   still has them alone.
 * - `input`: the user's input inside the first user message, the longest recorded text the message
 *   holds as a field of the template (its own lines, or after a `Label: `), never a phrase of a
 *   sentence (`Current Task: <input>\n\nThis is the expected criteria…`).
 * Neither counts a text the prompt only quotes (`The description about you is "…"`). Each is
 * undefined when no recorded text is inside. (The output attributes are looked at too: some
 * producers record the agent's whole state, instructions and input included, as its output.)
 */
export function textsInsideTemplate(agent: Span, prompt: TemplatedPrompt): TemplatedPrompt {
  const found: TemplatedPrompt = {}
  const system = prompt.system !== undefined && prompt.system.length > MIN_CHARS ? prompt.system : undefined
  const input =
    prompt.input !== undefined && prompt.input.length > MIN_CHARS && holdsFields(prompt.input)
      ? prompt.input
      : undefined
  if (system === undefined && input === undefined) return found
  const consider = (text: string) => {
    const trimmed = text.trim()
    if (trimmed.length < MIN_CHARS) return
    if (system !== undefined && longerInside(trimmed, system, found.system, false)) found.system = trimmed
    if (input !== undefined && longerInside(trimmed, input, found.input, true)) found.input = trimmed
  }
  for (const key in plainAttributes(agent.attributes)) eachString(agent.attributes[key], 0, consider)
  return found
}

/**
 * Whether a message can hold a field of a template (see {@link longerInside}): a text shorter than
 * the message starts a line or follows a `Label: `, and ends a line. A one-line message without a
 * label holds none, and its look at the span is saved.
 */
function holdsFields(message: string): boolean {
  return message.includes('\n') || message.includes(': ')
}

/** Whether `text` is inside `prompt` with more around it, unquoted (a field with `fieldOnly`), and longer than `best`. */
function longerInside(text: string, prompt: string, best: string | undefined, fieldOnly: boolean): boolean {
  if (text.length >= prompt.length || (best !== undefined && text.length <= best.length)) return false
  const at = prompt.indexOf(text)
  if (at < 0) return false
  const before = prompt.slice(Math.max(0, at - 2), at)
  const after = prompt[at + text.length]
  const quoted = /["'“«]$/.test(before) && /["'”»]/.test(after ?? '')
  // A field of a template: on lines of its own, or after a `Label: ` on its line.
  const field = (at === 0 || /(?:\n|: )$/.test(before)) && (after === undefined || after === '\n')
  return !quoted && (!fieldOnly || field)
}

/** Where an agent's description is recorded: `gen_ai.agent.description`, `agent_description`, … */
const DESCRIPTION_KEY = /agent[._]description$/i

/**
 * The system texts without a framework's introduction of the agent: a paragraph after the first
 * that quotes the agent's recorded name, and its recorded description where the agent span has one
 * (`You are an agent. Your internal name is "x". The description about you is "y".`). Such a
 * paragraph is written from the agent's configuration, not given as instructions. Undefined when
 * no paragraph is one.
 */
export function withoutIntroduction(
  agent: Span,
  system: readonly string[],
  agentName: string | undefined,
): string[] | undefined {
  if (!agentName) return undefined
  // No text quotes the name: nothing to drop, and the span's attributes need no look.
  const quoted = `"${agentName}"`
  if (!system.some((text) => text.includes(quoted))) return undefined
  let description: string | undefined
  for (const key in plainAttributes(agent.attributes)) {
    const value = agent.attributes[key]
    if (typeof value === 'string' && DESCRIPTION_KEY.test(key)) description = value
  }
  const introduces = (paragraph: string) =>
    paragraph.includes(quoted) && (!description || paragraph.includes(`"${description}"`))
  let changed = false
  const kept = system.map((text) => {
    const paragraphs = text.split('\n\n')
    const own = paragraphs.filter((paragraph, index) => index === 0 || !introduces(paragraph))
    if (own.length === paragraphs.length) return text
    changed = true
    return own.join('\n\n')
  })
  return changed ? kept : undefined
}
