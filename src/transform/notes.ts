import type { RecordedParts, RunPart } from '../model/index.ts'

/**
 * Collects what could not be rebuilt for one agent run, without duplicates, in the order found,
 * and which of its parts the trace did not record (`missing`), for the run's `recorded` field.
 */
export class Notes {
  /** Made at the first note, as `absent` at the first `missing` call: a `Notes` is made for every model output read, and most get none. */
  private seen: Set<string> | undefined
  private absent: Set<RunPart> | undefined

  /** Records one note (ignored when already recorded). */
  add(note: string): void {
    this.seen ??= new Set()
    this.seen.add(note)
  }

  /** Parts a span holds only flattened into one text, with the note that says so (`flattened`). */
  private flat: { parts: readonly RunPart[]; note: string } | undefined
  /** The parts reported missing that are only flattened (`inseparable`). */
  private mixed: RunPart[] | undefined

  /**
   * Records that the trace did not record `part` of the run, with the note that says so; a part
   * `flattened` named is held by the trace all the same, and its note says where instead.
   */
  missing(part: RunPart, note: string): void {
    this.absent ??= new Set()
    this.absent.add(part)
    if (this.flat?.parts.includes(part)) {
      this.add(this.flat.note)
      this.mixed ??= []
      this.mixed.push(part)
    } else this.add(note)
  }

  /**
   * Records that a span holds `parts` only mixed in one text that cannot be split back (a prompt's
   * messages joined into one string): if those parts are then found missing, the run says this.
   */
  flattened(parts: readonly RunPart[], note: string): void {
    this.flat ??= { parts, note }
  }

  /** The parts reported missing that the trace holds only flattened; undefined when none. */
  inseparable(): RunPart[] | undefined {
    return this.mixed
  }

  /** The notes recorded so far. */
  list(): string[] {
    return this.seen === undefined ? [] : [...this.seen]
  }

  /** Which parts were recorded: every part no `missing` call named. */
  recorded(): RecordedParts {
    // One literal in the order of RUN_PARTS (the type asks for every part), not keys added one by one.
    const absent = this.absent
    return {
      input: absent?.has('input') !== true,
      system: absent?.has('system') !== true,
      finalText: absent?.has('finalText') !== true,
      toolArguments: absent?.has('toolArguments') !== true,
      toolResults: absent?.has('toolResults') !== true,
    }
  }
}
