import { describe, expect, it } from 'vitest'
import { type BudgetClaim, type BudgetReservation, TokenBudget } from './token-budget.ts'

/** The reservation of a claim that must have been granted. */
function reserved(claim: BudgetClaim): BudgetReservation {
  if (claim.outcome !== 'reserved') throw new Error(`expected a reservation, got ${claim.outcome}`)
  return claim.reservation
}

describe('TokenBudget', () => {
  it('has no opinion on scorers without a budget', async () => {
    expect(await new TokenBudget({}).reserve('free')).toEqual({ outcome: 'unbudgeted' })
  })

  it('lets the first run of the day go alone, then reserves the learned cost per run', async () => {
    const budget = new TokenBudget({ judge: 250 }, () => 0)
    const first = reserved(await budget.reserve('judge'))
    let secondGranted = false
    const second = budget.reserve('judge').then((r) => {
      secondGranted = true
      return reserved(r)
    })
    await new Promise((r) => setTimeout(r, 5))
    expect(secondGranted).toBe(false) // waits for the first run to show what a run costs
    budget.settle(first, 100)
    const granted = await second
    expect(granted.estimate).toBe(100)
    const third = reserved(await budget.reserve('judge')) // 100 spent + 100 reserved < 250
    expect(third.estimate).toBe(100)
    expect(await budget.reserve('judge')).toEqual({ outcome: 'exhausted' }) // 100 + 200 ≥ 250: skipped
    budget.settle(granted, 100)
    budget.settle(third, 100)
    expect(budget.spentToday()).toEqual({ judge: 300 })
    expect(budget.hasBudget('judge')).toBe(false)
  })

  it('bounds concurrent runs to the budget instead of letting every one through', async () => {
    const budget = new TokenBudget({ judge: 1000 }, () => 0)
    let granted = 0
    let skipped = 0
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        const claim = await budget.reserve('judge')
        if (claim.outcome !== 'reserved') return void skipped++
        granted++
        await new Promise((resolve) => setTimeout(resolve, 1))
        budget.settle(claim.reservation, 100)
      }),
    )
    expect(granted + skipped).toBe(50)
    expect(granted).toBeLessThanOrEqual(11)
    expect(budget.spentToday().judge).toBeLessThanOrEqual(1100)
  })

  it('starts again the next UTC day', async () => {
    let now = Date.UTC(2026, 10, 30, 23)
    const budget = new TokenBudget({ judge: 10 }, () => now)
    budget.settle(reserved(await budget.reserve('judge')), 50)
    expect(await budget.reserve('judge')).toEqual({ outcome: 'exhausted' })
    now += 3_600_000
    expect((await budget.reserve('judge')).outcome).toBe('reserved')
  })
})
