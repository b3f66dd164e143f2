import type { ScoreRecord } from '../model/index.ts'
import type { Sink } from './sink.ts'

/** Options of `coalesceDeliveries`. */
interface CoalesceOptions {
  /** How long a delivery waits for others to join its batch. Default 5 ms. */
  lingerMs?: number
  /** A batch is sent at once when it holds this many records. Default 512. */
  maxRecords?: number
}

/**
 * Batches concurrent deliveries into one call of `inner`: the pipeline scores many traces at
 * once, and one export per trace would cost one HTTP round trip each (and overrun the OTLP
 * exporter's limit of pending exports). Each caller's promise settles with its batch, so the
 * offset contract is unchanged: a trace is acknowledged only when the batch holding its scores
 * was delivered; a failed batch fails every trace in it, and each is retried on its own.
 */
export function coalesceDeliveries(inner: Sink, options: CoalesceOptions = {}): Sink {
  const lingerMs = options.lingerMs ?? 5
  const maxRecords = options.maxRecords ?? 512
  let pending: { records: ScoreRecord[]; resolve: () => void; reject: (error: unknown) => void }[] = []
  let size = 0
  let timer: NodeJS.Timeout | undefined
  const flush = () => {
    if (timer !== undefined) clearTimeout(timer)
    timer = undefined
    const batch = pending
    pending = []
    size = 0
    if (batch.length === 0) return
    inner.deliver(batch.flatMap((b) => b.records)).then(
      () => {
        for (const b of batch) b.resolve()
      },
      (error: unknown) => {
        for (const b of batch) b.reject(error)
      },
    )
  }
  return {
    name: inner.name,
    deliver: (records) =>
      new Promise<void>((resolve, reject) => {
        pending.push({ records, resolve, reject })
        size += records.length
        if (size >= maxRecords) flush()
        else timer ??= setTimeout(flush, lingerMs)
      }),
    ...(inner.stats ? { stats: () => inner.stats!() } : {}),
    close: async () => {
      flush()
      await inner.close()
    },
  }
}
