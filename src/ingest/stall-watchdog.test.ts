import { describe, expect, it } from 'vitest'
import { createStallWatchdog } from './stall-watchdog.ts'

describe('stall watchdog', () => {
  it('reports one stall once the timeout passed without progress, and none while touched', () => {
    const clock = { t: 0 }
    const stalls: number[] = []
    const watchdog = createStallWatchdog({
      timeoutMs: 1_000,
      now: () => clock.t,
      onStall: (ms) => stalls.push(ms),
    })
    for (let i = 0; i < 5; i++) {
      clock.t += 900
      watchdog.touch()
      watchdog.check()
    }
    expect(stalls).toEqual([])
    clock.t += 1_500
    watchdog.check()
    clock.t += 5_000
    watchdog.check()
    expect(stalls).toEqual([1_500])
  })
})
