/** Collects what could not be rebuilt for one agent run, without duplicates, in the order found. */
export class Notes {
  private readonly seen = new Set<string>()

  /** Records one note (ignored when already recorded). */
  add(note: string): void {
    this.seen.add(note)
  }

  /** The notes recorded so far. */
  list(): string[] {
    return [...this.seen]
  }
}
