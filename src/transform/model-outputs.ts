import type { Span } from '../model/index.ts'
import type { ChatMessage } from './chat-message.ts'
import { readerFor } from './detect-convention.ts'
import { Notes } from './notes.ts'

/** One span's output as read once: the messages and the notes the reading made. */
interface OutputRead {
  messages: ChatMessage[] | undefined
  notes: string[]
  /** Whether a caller took the messages to keep (see {@link ModelOutputs.keep}). */
  kept: boolean
}

/**
 * What the model calls (and step spans) of one run answered, each read once for the run: the
 * run's tool calls, each step's text and the final text all come from the same output messages,
 * and every read parses the span's message attribute (JSON) again.
 *
 * The messages hold values parsed from the span (tool arguments, results) that end up in the
 * run a scorer receives, and a scorer may change them. So one caller only keeps them
 * ({@link keep}); a second keeper gets a reading of its own, and readers that take only strings
 * share the first reading ({@link peek}). A value changed in one run, or in one field of it, is
 * then nowhere else. Made per run and dropped with it: nothing is kept across runs or calls.
 */
export class ModelOutputs {
  readonly #reads = new Map<Span, OutputRead>()

  /** The span's output messages for a caller that keeps objects of them (in the run it builds). */
  keep(span: Span, notes: Notes): ChatMessage[] | undefined {
    const read = this.#reads.get(span)
    if (read?.kept === true) return this.#read(span, notes).messages
    const shared = read ?? this.#remember(span, notes)
    if (read) replay(read, notes)
    shared.kept = true
    return shared.messages
  }

  /**
   * The span's output messages for a caller that reads them and keeps nothing of them but strings
   * (texts): they may be the messages another caller keeps.
   */
  peek(span: Span, notes: Notes): readonly ChatMessage[] | undefined {
    const read = this.#reads.get(span)
    if (read === undefined) return this.#remember(span, notes).messages
    replay(read, notes)
    return read.messages
  }

  #remember(span: Span, notes: Notes): OutputRead {
    const read = this.#read(span, notes)
    this.#reads.set(span, read)
    return read
  }

  #read(span: Span, notes: Notes): OutputRead {
    const own = new Notes()
    const messages = readerFor(span)?.modelOutput(span, own)
    const read: OutputRead = { messages, notes: own.list(), kept: false }
    replay(read, notes)
    return read
  }
}

/** Adds the notes a reading made to a run's notes (each time it is used, as a fresh read would). */
function replay(read: OutputRead, notes: Notes): void {
  for (const note of read.notes) notes.add(note)
}
