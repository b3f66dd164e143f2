import type { Span } from '../model/index.ts'
import { StatusCode } from '../model/index.ts'
import { shouldSample } from '../scoring/sampling.ts'

/**
 * Which traces the ingest lets in, decided from the trace id before anything else is read of a
 * span: a trace id passes when the highest sampling rate of the registered scorers samples it
 * (every scorer at one rate samples a subset of the traces a higher rate samples: see
 * `shouldSample`). A trace no scorer can score is passed by: not decoded, buffered, assembled
 * nor transformed. `claims` are the scorers' `alwaysScore` rules: a trace the rate rejects is
 * kept, cheaply, while one of its spans may match them.
 */
export interface SamplingDoor {
  /** The highest sampling rate of any scorer, in [0, 1). */
  rate: number
  /** The `alwaysScore` rules of every scorer; absent when no scorer has one. */
  claims?: DoorClaims
}

/** The `alwaysScore` rules of the registered scorers, merged. */
export interface DoorClaims {
  /** Some scorer always scores failed runs. */
  errors: boolean
  /** Agent names some scorer always scores. */
  agentNames: readonly string[]
}

/** What the door reads of a scorer entry (the configuration's `ScorerEntry`). */
interface DoorScorer {
  sampling?: { type: string; rate?: number } | undefined
  alwaysScore?: { errors?: boolean | undefined; agentNames?: string[] | undefined } | undefined
}

/**
 * The door of a set of scorers, or undefined when every trace must come in: some scorer samples
 * all traces (no `sampling`, or `none`), or there is no scorer at all (nothing is scored then,
 * and traces are counted as before). A sampling type the scoring stage does not know samples
 * nothing there (fail closed), so it lets nothing in here.
 */
export function samplingDoorOf(scorers: Record<string, DoorScorer>): SamplingDoor | undefined {
  const entries = Object.values(scorers)
  if (entries.length === 0) return undefined
  let rate = 0
  let errors = false
  const agentNames = new Set<string>()
  for (const entry of entries) {
    const sampling = entry.sampling
    if (sampling === undefined || sampling.type === 'none') return undefined
    if (sampling.type === 'ratio' && typeof sampling.rate === 'number') rate = Math.max(rate, sampling.rate)
    if (entry.alwaysScore?.errors === true) errors = true
    for (const name of entry.alwaysScore?.agentNames ?? []) agentNames.add(name)
  }
  if (!(rate < 1)) return undefined
  const claims = errors || agentNames.size > 0 ? { errors, agentNames: [...agentNames] } : undefined
  return claims ? { rate, claims } : { rate }
}

/**
 * The door as the scan uses it: `keep` answers per trace id (the last answer is remembered: the
 * spans of one trace come together in a record, so a trace is hashed about once per record).
 */
export interface DoorFilter {
  keep(traceId: string): boolean
  /**
   * True when the trace id in bytes `buf[at..at+16)` was rejected recently (`rememberRejected`):
   * the scan then passes its span by without making the id's hex string nor asking `keep`.
   */
  rejectedBefore?(buf: Uint8Array, at: number): boolean
  /** Remembers the trace id in bytes `buf[at..at+16)` as rejected (see `rejectedBefore`). */
  rememberRejected?(buf: Uint8Array, at: number): void
  readonly claims: DoorClaims | undefined
  /** The agent names as UTF-8 bytes, in every form a producer may have written them (see `nameForms`). */
  readonly nameBytes: readonly Uint8Array[]
}

/** Decisions remembered per trace id before the memory starts over (a few ms of traffic). */
const REMEMBERED_DECISIONS = 4096

/** The filter of a door. */
export function doorFilterOf(door: SamplingDoor): DoorFilter {
  let lastId: string | undefined
  let lastKeep = false
  // SDKs batch the spans of concurrent traces together: a trace's spans are near each other in a
  // record, not always next to each other, and a hash per span would cost more than the scan.
  let decided = new Map<string, boolean>()
  const encoder = new TextEncoder()
  const names = door.claims?.agentNames ?? []
  return {
    keep(traceId) {
      if (traceId === lastId) return lastKeep
      lastId = traceId
      const known = decided.get(traceId)
      if (known !== undefined) lastKeep = known
      else {
        lastKeep = shouldSample(traceId, door.rate)
        if (decided.size >= REMEMBERED_DECISIONS) decided = new Map()
        decided.set(traceId, lastKeep)
      }
      return lastKeep
    },
    ...rejectedIds(),
    claims: door.claims,
    nameBytes: [...new Set(names.flatMap(nameForms))].map((form) => encoder.encode(form)),
  }
}

/**
 * The texts an agent name may appear as in a span's bytes: as it is (an attribute value, a span
 * name or part of one), and escaped as JSON writers escape it (JavaScript's, and Python's with
 * its default `ensure_ascii`), for names read out of JSON metadata. A match is a "may claim":
 * the scoring stage decides from the run itself.
 */
function nameForms(name: string): string[] {
  const json = JSON.stringify(name).slice(1, -1)
  const ascii = json.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  return [name, json, ascii]
}

/**
 * Whether a decoded span may make its trace's run one the `alwaysScore` rules claim: status
 * ERROR or an `exception` event (the conventions that record a failure without the status) for
 * `errors`; a listed agent name in its name or a string attribute for `agentNames`.
 */
export function spanMayClaim(span: Span, claims: DoorClaims): boolean {
  if (claims.errors) {
    if (span.status.code === StatusCode.ERROR) return true
    if (span.events.some((event) => event.name === 'exception')) return true
  }
  if (claims.agentNames.length === 0) return false
  const texts = [
    span.name,
    ...Object.values(span.attributes).filter((v) => typeof v === 'string'),
  ] as string[]
  return claims.agentNames.some((name) => texts.some((text) => text.includes(name)))
}

/** Trace ids remembered as rejected, by their bytes: one slot each, chosen by their first bytes. */
const REJECTED_SLOTS = 4096
const ID_BYTES = 16

/**
 * The door's memory of rejected trace ids as bytes: most spans of a rejected trace come after its
 * first (a trace has several spans, interleaved with other traces' in a record), and such a span
 * then costs the scan a compare of 16 bytes, no hex string, no map lookup. A slot holds the last id
 * written to it; a hit needs all 16 bytes equal, and a trace id's decision never changes.
 */
function rejectedIds(): Required<Pick<DoorFilter, 'rejectedBefore' | 'rememberRejected'>> {
  const ids = new Uint8Array(REJECTED_SLOTS * ID_BYTES)
  const used = new Uint8Array(REJECTED_SLOTS)
  // Trace ids are random: their first bytes spread them over the slots.
  const slotOf = (buf: Uint8Array, at: number) => (buf[at]! | (buf[at + 1]! << 8)) & (REJECTED_SLOTS - 1)
  return {
    rejectedBefore(buf, at) {
      const slot = slotOf(buf, at)
      if (used[slot] === 0) return false
      const base = slot * ID_BYTES
      for (let i = 0; i < ID_BYTES; i++) if (ids[base + i] !== buf[at + i]) return false
      return true
    },
    rememberRejected(buf, at) {
      const slot = slotOf(buf, at)
      ids.set(buf.subarray(at, at + ID_BYTES), slot * ID_BYTES)
      used[slot] = 1
    },
  }
}
