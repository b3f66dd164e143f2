import { createHash, randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { AvailableHooks, deregisterHook, registerHook } from '@mastra/core/hooks'
import { describe, expect, it } from 'vitest'
import { isSampled, type ScoringSamplingConfig, shouldSample, traceIdToUnitInterval } from './sampling.ts'

// Computed independently with Python: int.from_bytes(sha256(s.encode('utf-8')).digest()[:6], 'big').
const vectors: [string, number][] = [
  ['a', 222752054364699],
  ['4bf92f3577b34da6a3ce929d0e0e4736', 63268272891332],
  ['0af7651916cd43dd8448eb211c80319c', 24152563005932],
  ['trace-é-ü', 96479311792298],
  ['', 250348346448124],
]

describe('traceIdToUnitInterval', () => {
  it.each(vectors)('maps %j to its first 6 SHA-256 bytes, big-endian, over 2^48', (traceId, first48Bits) => {
    expect(traceIdToUnitInterval(traceId)).toBe(first48Bits / 2 ** 48)
  })

  it('hashes the id text, not the bytes a hex id stands for', () => {
    const hex = '4bf92f3577b34da6a3ce929d0e0e4736'
    const ofBytes = createHash('sha256').update(Buffer.from(hex, 'hex')).digest().readUIntBE(0, 6) / 2 ** 48
    expect(ofBytes).toBeCloseTo(0.4361158077380942, 15)
    expect(traceIdToUnitInterval(hex)).not.toBe(ofBytes)
  })

  it('stays in [0, 1)', () => {
    for (let i = 0; i < 200; i++) {
      const value = traceIdToUnitInterval(randomBytes(16).toString('hex'))
      expect(value).toBeGreaterThanOrEqual(0)
      expect(value).toBeLessThan(1)
    }
  })
})

describe('shouldSample', () => {
  const id = '4bf92f3577b34da6a3ce929d0e0e4736' // hashes to 0.22477405853511812

  it('samples iff the hash is below the rate', () => {
    expect(shouldSample(id, 0.2248)).toBe(true)
    expect(shouldSample(id, 0.2247)).toBe(false)
    expect(shouldSample(id, 63268272891332 / 2 ** 48)).toBe(false)
  })

  it('rate 1 samples everything, rate 0 and NaN nothing', () => {
    expect(shouldSample('a', 1)).toBe(true)
    expect(shouldSample(id, 0)).toBe(false)
    expect(shouldSample(id, Number.NaN)).toBe(false)
  })

  it('is monotone in the rate: a trace sampled at a rate is sampled at every higher rate', () => {
    const ids = Array.from({ length: 300 }, (_, i) => `trace-${i}`)
    const at10 = ids.filter((t) => shouldSample(t, 0.1))
    const at50 = ids.filter((t) => shouldSample(t, 0.5))
    expect(at10.every((t) => at50.includes(t))).toBe(true)
    expect(at10.length).toBeGreaterThan(0)
    expect(at50.length).toBeGreaterThan(at10.length)
    expect(at50.length).toBeLessThan(ids.length)
  })
})

describe('isSampled', () => {
  it('scores everything without a config or with type none', () => {
    expect(isSampled(undefined, 'a')).toBe(true)
    expect(isSampled({ type: 'none' }, 'a')).toBe(true)
  })

  it('applies the ratio', () => {
    // 'a' hashes to 0.7913...
    expect(isSampled({ type: 'ratio', rate: 0.8 }, 'a')).toBe(true)
    expect(isSampled({ type: 'ratio', rate: 0.79 }, 'a')).toBe(false)
  })

  it('fails closed on an unknown sampling type', () => {
    expect(isSampled({ type: 'always' } as unknown as ScoringSamplingConfig, 'a')).toBe(false)
    expect(isSampled({} as unknown as ScoringSamplingConfig, 'a')).toBe(false)
  })
})

/**
 * Mastra's `runScorer` (src/evals/hooks.ts) is not exported from a public entry point; it is
 * exported (minified name) from the dist chunk that defines `hashToUnitInterval`. Find it there.
 */
async function loadMastraRunScorer(): Promise<(args: Record<string, unknown>) => void> {
  const require = createRequire(import.meta.url)
  const dist = join(dirname(require.resolve('@mastra/core/package.json')), 'dist')
  for (const file of readdirSync(dist)) {
    if (!file.endsWith('.js')) continue
    const source = readFileSync(join(dist, file), 'utf8')
    if (!source.includes('function hashToUnitInterval(')) continue
    const exported = /\brunScorer as ([\w$]+)/.exec(source)?.[1]
    if (!exported) continue
    const chunk = (await import(pathToFileURL(join(dist, file)).href)) as Record<string, unknown>
    return chunk[exported] as (args: Record<string, unknown>) => void
  }
  throw new Error('runScorer not found in @mastra/core dist')
}

describe('isSampled against @mastra/core 1.71 live-scoring sampling', () => {
  it('makes the same decision as Mastra for 400 trace ids at several rates and configs', async () => {
    const runScorer = await loadMastraRunScorer()
    const fired = new Set<string>()
    const onRun = (payload: unknown) => {
      fired.add((payload as { runId: string }).runId)
    }
    registerHook(AvailableHooks.ON_SCORER_RUN, onRun)
    try {
      const traceIds = [
        ...vectors.map(([id]) => id).filter((id) => id !== ''),
        ...Array.from({ length: 395 }, () => randomBytes(16).toString('hex')),
      ]
      const configs: (ScoringSamplingConfig | undefined)[] = [
        undefined,
        { type: 'none' },
        { type: 'ratio', rate: 0 },
        { type: 'ratio', rate: 0.05 },
        { type: 'ratio', rate: 0.5 },
        { type: 'ratio', rate: 0.9 },
        { type: 'ratio', rate: 1 },
        { type: 'bogus' } as unknown as ScoringSamplingConfig,
      ]
      const expected = new Set<string>()
      for (const [c, sampling] of configs.entries()) {
        for (const traceId of traceIds) {
          const runId = `${c}:${traceId}`
          if (isSampled(sampling, traceId)) expected.add(runId)
          runScorer({
            runId,
            scorerId: 's',
            scorerObject: { scorer: { id: 's', name: 's', description: 'd' }, sampling },
            input: {},
            output: [],
            source: 'LIVE',
            entityType: 'AGENT',
            tracing: { currentSpan: { traceId, isValid: true } },
          })
        }
      }
      // Mastra emits the hook with setImmediate.
      await new Promise((resolve) => setImmediate(resolve))
      await new Promise((resolve) => setTimeout(resolve, 0))
      expect(expected.size).toBeGreaterThan(traceIds.length * 2)
      expect([...fired].sort()).toEqual([...expected].sort())
    } finally {
      deregisterHook(AvailableHooks.ON_SCORER_RUN, onRun)
    }
  })
})
