/** Runs tasks one after another per key; tasks on disjoint keys run concurrently. */
export interface KeyedLock {
  /** Runs `task` once every earlier task holding one of `keys` has settled. */
  run<T>(keys: readonly string[], task: () => Promise<T>): Promise<T>
}

/**
 * A lock per key, for read-modify-write of one backend object per key (a trace's annotations):
 * two concurrent deliveries of the same trace would otherwise both read the old state and the
 * later write would drop the other's runs. Waiting is ordered by call, so it cannot deadlock.
 */
export function createKeyedLock(): KeyedLock {
  const tails = new Map<string, Promise<void>>()
  return {
    async run(keys, task) {
      const unique = [...new Set(keys)]
      const earlier = unique.map((key) => tails.get(key)).filter((p) => p !== undefined)
      let release!: () => void
      const mine = new Promise<void>((resolve) => {
        release = resolve
      })
      for (const key of unique) tails.set(key, mine)
      try {
        await Promise.all(earlier)
        return await task()
      } finally {
        release()
        for (const key of unique) if (tails.get(key) === mine) tails.delete(key)
      }
    },
  }
}
