import { totalmem } from 'node:os'
import { getHeapStatistics } from 'node:v8'

/** The memory limits a process runs under, in bytes (0 or absent: unknown). */
export interface MemoryLimits {
  /** V8's heap limit (`--max-old-space-size`, or what Node chose from the machine's memory). */
  heapLimit: number
  /** The cgroup (container) memory limit, `process.constrainedMemory()`; absent when unconstrained. */
  constrained?: number
  /** The machine's memory. */
  total: number
}

/** Share of the memory limit the span buffer may hold by default (the rest: the heap's own work, decoding, scoring). */
const BUFFER_SHARE = 0.25
/** Never less than this by default (a tiny container still buffers a few seconds of traffic). */
const MIN_DEFAULT_BYTES = 32 * 1024 * 1024
/**
 * Bytes one buffered span costs at least, whatever its payload: the assembler's slots for it and
 * its share of its trace's record (measured ~100–300 bytes of heap per span, `bench/memory.bench.ts`).
 */
const MIN_BYTES_PER_SPAN = 256

/** The limits of this process. */
export function processMemoryLimits(): MemoryLimits {
  const constrained = process.constrainedMemory?.()
  return {
    heapLimit: getHeapStatistics().heap_size_limit,
    ...(typeof constrained === 'number' && constrained > 0 ? { constrained } : {}),
    total: totalmem(),
  }
}

/**
 * The process's memory limit: the lowest of the heap limit, the cgroup limit and the machine's
 * memory (an unconstrained process reports a cgroup limit of 2^64, left out by the minimum).
 */
export function memoryLimitOf(limits: MemoryLimits): number {
  const known = [limits.heapLimit, limits.constrained ?? 0, limits.total].filter((n) => n > 0)
  return known.length === 0 ? 0 : Math.min(...known)
}

/**
 * Default `assembly.maxBufferedBytes`: a quarter of the process's memory limit (at least 32 MiB),
 * so that a buffer of lazily decoded spans, with the heap each span costs beyond its payload,
 * stays well inside the limit.
 */
export function defaultMaxBufferedBytes(limits: MemoryLimits = processMemoryLimits()): number {
  return Math.max(MIN_DEFAULT_BYTES, Math.floor(memoryLimitOf(limits) * BUFFER_SHARE))
}

/**
 * Default `assembly.maxBufferedSpans` for a byte cap: the spans that fit at the least a span costs
 * ({@link MIN_BYTES_PER_SPAN}), so the count only binds on spans too small for the byte cap to see.
 */
export function spanCapFor(maxBufferedBytes: number): number {
  return Math.max(1, Math.floor(maxBufferedBytes / MIN_BYTES_PER_SPAN))
}
