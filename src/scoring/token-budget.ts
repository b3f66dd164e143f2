/** A claim on a scorer's budget for one run; give it back with `settle`. */
export interface BudgetReservation {
  readonly scorer: string
  readonly estimate: number
}

/** What `TokenBudget.reserve` answers for one run. */
export type BudgetClaim =
  /** Run it, then `settle` the reservation with the tokens it used. */
  | { readonly outcome: 'reserved'; readonly reservation: BudgetReservation }
  /** The scorer's budget for today is spent: skip the run. */
  | { readonly outcome: 'exhausted' }
  /** The scorer has no budget: run it, there is nothing to settle. */
  | { readonly outcome: 'unbudgeted' }

interface ScorerBudget {
  limit: number
  spent: number
  runs: number
  reserved: number
  inFlight: number
  /** Runs waiting for the first run of the day to show what a run costs. */
  waiting: (() => void)[]
}

/**
 * Per-scorer daily judge-token budgets (UTC days), with the clock injected. Many runs are scored
 * at once, so a plain "spent < limit" check would let every concurrent run through before any had
 * reported its tokens. Each run therefore reserves the scorer's average cost per run; the first
 * run of a day goes alone to learn that cost. Spending stays within the budget plus about one
 * run's cost.
 */
export class TokenBudget {
  readonly #budgets = new Map<string, ScorerBudget>()
  readonly #now: () => number
  #day = -1

  constructor(limits: Record<string, number>, now: () => number = Date.now) {
    for (const [scorer, limit] of Object.entries(limits)) {
      this.#budgets.set(scorer, { limit, spent: 0, runs: 0, reserved: 0, inFlight: 0, waiting: [] })
    }
    this.#now = now
  }

  /** Claims budget for one run (waiting while the first run of the day learns what a run costs). */
  async reserve(scorer: string): Promise<BudgetClaim> {
    const budget = this.#budgets.get(scorer)
    if (!budget) return { outcome: 'unbudgeted' }
    for (;;) {
      this.#rollDay()
      if (budget.spent + budget.reserved >= budget.limit) return { outcome: 'exhausted' }
      if (budget.runs > 0 || budget.inFlight === 0) break
      await new Promise<void>((resolve) => budget.waiting.push(resolve))
    }
    const estimate = budget.runs > 0 ? budget.spent / budget.runs : 0
    budget.reserved += estimate
    budget.inFlight++
    return { outcome: 'reserved', reservation: { scorer, estimate } }
  }

  /** Records what a reserved run really used and releases its reservation. */
  settle(reservation: BudgetReservation, tokens: number): void {
    const budget = this.#budgets.get(reservation.scorer)!
    budget.reserved = Math.max(0, budget.reserved - reservation.estimate)
    budget.inFlight--
    if (tokens > 0) budget.spent += tokens
    budget.runs++
    for (const wake of budget.waiting.splice(0)) wake()
  }

  /** True when the scorer still has budget today (or has no budget at all). */
  hasBudget(scorer: string): boolean {
    const budget = this.#budgets.get(scorer)
    if (!budget) return true
    this.#rollDay()
    return budget.spent + budget.reserved < budget.limit
  }

  /** Tokens spent today per scorer with a budget. */
  spentToday(): Record<string, number> {
    this.#rollDay()
    return Object.fromEntries([...this.#budgets].map(([scorer, b]) => [scorer, b.spent]))
  }

  #rollDay(): void {
    const day = Math.floor(this.#now() / 86_400_000)
    if (day === this.#day) return
    this.#day = day
    for (const budget of this.#budgets.values()) {
      budget.spent = 0
      budget.runs = 0
    }
  }
}
