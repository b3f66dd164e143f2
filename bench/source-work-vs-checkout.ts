/**
 * The span source's own work per span against another checkout of tracescore, in one process (as
 * `transform-vs-checkout.ts` does for the transform): the same protobuf records of mixed or
 * GenAI-heavy traffic (null-keyed records of 50 spans, traces interleaved as SDKs batch them) go
 * through this checkout's `createSourceWork` and the other's, alternately, pair after pair, so a
 * loaded machine slows both alike. Prints the median CPU µs per input span of each, the ratio of
 * the medians and the median of the pairs' own ratios. `SOURCE_VS_RATE` (e.g. 0.1) reads this
 * checkout's side through the sampling door of scorers at that rate (`SOURCE_VS_BOTH=1`: both
 * sides, for two checkouts that have the door); `SOURCE_VS_PAIRS` sets the
 * number of pairs (default 15).
 *
 *   git worktree add --detach /tmp/ref <commit> && ln -s "$PWD/node_modules" /tmp/ref/node_modules
 *   node --import tsx bench/source-work-vs-checkout.ts /tmp/ref [mixed|genai]
 */
import { genAiTraffic, mixedTraffic, nullKeyedRecords } from '../test/helpers/mixed-traffic.ts'
import { decodeAndAssemble, type SourceWork } from './ingest.bench.ts'
import { createSourceWork } from './source-work.ts'

const [ref, which = 'mixed'] = process.argv.slice(2)
if (!ref) throw new Error('usage: bench/source-work-vs-checkout.ts CHECKOUT [mixed|genai]')
const theirCreate: (now: () => number, door?: { rate: number }) => SourceWork = (
  await import(`${ref}/bench/source-work.ts`)
).createSourceWork
const rate = process.env.SOURCE_VS_RATE === undefined ? undefined : Number(process.env.SOURCE_VS_RATE)
const door = rate === undefined ? undefined : { rate }
// `SOURCE_VS_BOTH=1`: the other checkout reads through the same door (both have one).
const theirWork = (now: () => number) =>
  theirCreate(now, process.env.SOURCE_VS_BOTH === '1' ? door : undefined)

const generate = which === 'genai' ? genAiTraffic : mixedTraffic
const seeds = which === 'genai' ? 20 : 60
const payloads: Buffer[] = []
let spans = 0
for (let seed = 1; seed <= seeds; seed++) {
  const traffic = generate(40_000 + seed)
  spans += traffic.length
  for (const record of nullKeyedRecords(traffic, { partitions: 2, spansPerRecord: 50 }))
    payloads.push(Buffer.from(record.value))
}

/** CPU µs per span of reading every record as the source does (see `decodeAndAssemble`). */
const cpuMicrosPerSpan = (make: (now: () => number) => SourceWork): number =>
  (decodeAndAssemble(payloads, make) * 1e6) / spans

const ours = (now: () => number) => createSourceWork(now, door)
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!
for (let i = 0; i < 2; i++) cpuMicrosPerSpan(theirWork) + cpuMicrosPerSpan(ours)
const pairs = Number(process.env.SOURCE_VS_PAIRS ?? 15)
const theirs: number[] = []
const mine: number[] = []
const ratios: number[] = []
for (let i = 0; i < pairs; i++) {
  // Each side runs first every other pair.
  let a: number
  let b: number
  if (i % 2 === 0) {
    a = cpuMicrosPerSpan(theirWork)
    b = cpuMicrosPerSpan(ours)
  } else {
    b = cpuMicrosPerSpan(ours)
    a = cpuMicrosPerSpan(theirWork)
  }
  theirs.push(a)
  mine.push(b)
  ratios.push(b / a)
}
console.log(
  `${which}, ${payloads.length} records, ${spans} spans, ${pairs} pairs, this checkout ${door ? `through the door at ${rate}` : 'without a door'}:`,
)
console.log(
  `  CPU µs per span: ${ref} ${median(theirs).toFixed(2)}, this checkout ${median(mine).toFixed(2)}; ` +
    `ratio of medians ${(median(mine) / median(theirs)).toFixed(3)}, median of pair ratios ${median(ratios).toFixed(3)}`,
)
