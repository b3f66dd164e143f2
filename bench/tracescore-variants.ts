/**
 * A diagnostic beside the Collector bench: `tracescore run` alone, as that bench runs it, over one
 * pre-filled topic, once per variant per round (the order alternated), each variant an environment
 * for the service (Node flags in NODE_OPTIONS, the memory sampler of `memory-sampler.mjs`, ...).
 *
 *   VARIANTS='[{"name":"base","env":{}},{"name":"semi16","env":{"NODE_OPTIONS":"--max-semi-space-size=16"}}]' \
 *   VARIANTS_TRAFFIC=mixed VARIANTS_RATE=1 VARIANTS_ROUNDS=3 npx tsx bench/tracescore-variants.ts
 *
 * A variant's `cwd` runs another build (e.g. a parent commit exported with `git archive`, built).
 * Prints each round (spans/s, CPU µs per span, peak RSS MiB, score spans received). With
 * `MEM_SAMPLER_DIR` in a variant's env, also the sample of highest RSS of its process.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { deleteTopics, testKafka } from '../test/helpers/kafka.ts'
import { fill, tracescoreRound, traffics } from './collector.bench.ts'
import { ensureBroker } from './pipeline.bench.ts'

interface Variant {
  name: string
  env: Record<string, string>
  /** A folder with another build of the package (its bin/ and dist/): another commit's code. */
  cwd?: string
}

const variants: Variant[] = JSON.parse(process.env.VARIANTS ?? '[{"name":"base","env":{}}]')
const traffic = traffics.find((t) => t.key === (process.env.VARIANTS_TRAFFIC ?? 'mixed'))!
const rate = Number(process.env.VARIANTS_RATE ?? 1)
const rounds = Number(process.env.VARIANTS_ROUNDS ?? 3)

/** The sample of highest RSS among the sampler files of `dir` not seen before. */
function peakSample(dir: string, seen: Set<string>): string {
  let best: { rss: number } | undefined
  let files: string[] = []
  try {
    files = readdirSync(dir).filter((f) => !seen.has(f))
  } catch {
    return ''
  }
  for (const f of files) {
    seen.add(f)
    for (const line of readFileSync(`${dir}/${f}`, 'utf8').split('\n')) {
      if (line === '') continue
      const s = JSON.parse(line)
      if (best === undefined || s.rss > best.rss) best = s
    }
  }
  return best === undefined ? '' : ` peak sample ${JSON.stringify(best)}`
}

ensureBroker()
const kafka = testKafka('bench-variants')
const backlog = await fill(kafka, traffic)
const seen = new Set<string>()
console.log(`${traffic.name} at ${rate * 100} %: ${backlog.spans} spans, ${backlog.records} records`)
try {
  for (let r = 0; r < rounds; r++) {
    for (const v of r % 2 === 0 ? variants : [...variants].reverse()) {
      const round = await tracescoreRound(kafka, backlog, rate, v.env, v.cwd)
      const dir = v.env.MEM_SAMPLER_DIR
      console.log(
        `round ${r + 1} ${v.name}: ${Math.round(round.spansPerSec)} spans/s / ${round.cpuUsPerSpan.toFixed(2)} µs / ${Math.round(round.peakRssMiB)} MiB; received ${round.received}; read ${round.readSeconds?.toFixed(1)} s${dir ? peakSample(dir, seen) : ''}`,
      )
    }
  }
} finally {
  await deleteTopics(kafka, [backlog.topic, `${backlog.topic}-dlq`]).catch(() => {})
}
