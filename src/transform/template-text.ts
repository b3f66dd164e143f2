import type { Span } from '../model/index.ts'
import { isRecord, parseJsonValue } from './read-attribute.ts'

/** Shorter texts are too common to be told from a template's own words. */
const MIN_CHARS = 12
/** Values nested deeper than this inside an attribute's JSON are not looked at. */
const MAX_DEPTH = 2

/**
 * Gives `visit` every string an attribute holds long enough to tell from a template's own words:
 * the value, or the strings of its JSON object a few levels down. Nothing is collected or kept:
 * most runs ask this once (instructions or input), and a list per agent span cost more to build
 * and remember than reading the span again.
 */
function eachString(value: unknown, depth: number, visit: (text: string) => void): void {
  if (typeof value === 'string') {
    if (value.length < MIN_CHARS) return
    visit(value)
    if (depth === 0 && value.charCodeAt(0) === 123 /* { */)
      eachString(parseJsonValue(value), depth + 1, visit)
  } else if (isRecord(value) && depth <= MAX_DEPTH) {
    for (const key in value) eachString(value[key], depth + 1, visit)
  }
}

/**
 * The program's instructions inside a framework's prompt template: the longest text the agent span
 * records (an attribute, or a field of one's JSON: CrewAI's `backstory`) that the first prompt's
 * system text holds with more around it. A framework wraps the instructions it was given in its own
 * words (`You are <role>. <instructions>\nYour personal goal is: …`); the span that received them
 * still has them alone. Undefined when no recorded text is inside the system text.
 */
export function instructionsInsideTemplate(agent: Span, system: readonly string[]): string | undefined {
  return textInsideTemplate(agent, system.join('\n'))
}

/**
 * The longest text the agent span records that `prompt` holds with more around it, not quoted
 * there (a template quotes what it only mentions: `The description about you is "…"`); with
 * `fieldOnly`, only as a field of the template (its own lines, or after a `Label: `), never a
 * phrase of a sentence.
 */
export function textInsideTemplate(
  agent: Span,
  prompt: string,
  { fieldOnly = false }: { fieldOnly?: boolean } = {},
): string | undefined {
  if (prompt.length <= MIN_CHARS) return undefined
  let best: string | undefined
  const consider = (text: string) => {
    const trimmed = text.trim()
    if (trimmed.length < MIN_CHARS || trimmed.length >= prompt.length) return
    if (best !== undefined && trimmed.length <= best.length) return
    const at = prompt.indexOf(trimmed)
    if (at < 0) return
    const before = prompt.slice(Math.max(0, at - 2), at)
    const after = prompt[at + trimmed.length]
    const quoted = /["'“«]$/.test(before) && /["'”»]/.test(after ?? '')
    // A field of a template: on lines of its own, or after a `Label: ` on its line.
    const field = (at === 0 || /(?:\n|: )$/.test(before)) && (after === undefined || after === '\n')
    if (!quoted && (!fieldOnly || field)) best = trimmed
  }
  for (const key in agent.attributes) eachString(agent.attributes[key], 0, consider)
  return best
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
  let description: string | undefined
  for (const key in agent.attributes) {
    const value = agent.attributes[key]
    if (typeof value === 'string' && DESCRIPTION_KEY.test(key)) description = value
  }
  const introduces = (paragraph: string) =>
    paragraph.includes(`"${agentName}"`) && (!description || paragraph.includes(`"${description}"`))
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
