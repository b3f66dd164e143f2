/** Per-scorer daily judge-token budgets (UTC days), with the clock injected. */
export class TokenBudget {
  readonly #limits: Map<string, number>
  readonly #now: () => number
  #day = -1
  readonly #spent = new Map<string, number>()

  constructor(limits: Record<string, number>, now: () => number = Date.now) {
    this.#limits = new Map(Object.entries(limits))
    this.#now = now
  }

  /** True when the scorer still has budget today (or has no budget at all). */
  hasBudget(scorer: string): boolean {
    const limit = this.#limits.get(scorer)
    if (limit === undefined) return true
    this.#rollDay()
    return (this.#spent.get(scorer) ?? 0) < limit
  }

  /** Records tokens a scorer's judge used. */
  spend(scorer: string, tokens: number): void {
    if (!this.#limits.has(scorer) || !(tokens > 0)) return
    this.#rollDay()
    this.#spent.set(scorer, (this.#spent.get(scorer) ?? 0) + tokens)
  }

  /** Tokens spent today per scorer with a budget. */
  spentToday(): Record<string, number> {
    this.#rollDay()
    return Object.fromEntries(this.#spent)
  }

  #rollDay(): void {
    const day = Math.floor(this.#now() / 86_400_000)
    if (day !== this.#day) {
      this.#day = day
      this.#spent.clear()
    }
  }
}
