import type { Timekeeper } from '../rate-limiter.ts'

/** A clock that jumps forward instead of sleeping, so rate limits are tested without waiting. */
export function fakeTime(): Timekeeper & { slept: number[] } {
  let now = 0
  const slept: number[] = []
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms)
      now += ms
    },
  }
}
