/**
 * Extraction cost against another checkout of tracescore, in one process: the same freshly decoded
 * spans are given to this checkout's `extractAgentRuns` and the other's, alternately, pair after
 * pair, so a loaded machine slows both alike (separate runs of bench/transform.bench.ts on a busy
 * machine differed by 30% between rounds). Prints the median CPU µs per trace of each and the ratio
 * of those medians, and the median of the pairs' own ratios: the two halves of a pair ran next to
 * each other, so that one follows the load as it changes during the run. Each pair runs the other
 * half first every other time (always running second cost 1-3% in runs of one commit against
 * itself). `TRANSFORM_VS_PAIRS` sets the number of pairs (default 25).
 *
 *   git worktree add --detach /tmp/ref <commit> && ln -s "$PWD/node_modules" /tmp/ref/node_modules
 *   node --import tsx bench/transform-vs-checkout.ts /tmp/ref [generated|fixtures]
 *
 * `generated`: 1,000 agent traces of the pipeline benchmark's traffic; `fixtures`: five copies of the
 * fixtures of the producers the other checkout has too (its test/fixtures/data), so both read the
 * same traces.
 *
 * `TRANSFORM_VS_PROFILES=N` (1-10): this checkout reads with N user producer profiles loaded
 * (`src/transform/testing/user-profiles.ts`; none owns the traffic's spans), the other without:
 * with the other a worktree of the same commit, the cost of loading profiles (issue 28).
 */
import { readdirSync } from 'node:fs'
import { readSpans } from '../src/ingest/record-reader.ts'
import { chunks, encodeOtlpProto, generateAgentTraffic } from '../src/ingest/testing/agent-traffic.ts'
import { groupByTrace, type Span } from '../src/model/index.ts'
import { extractAgentRuns } from '../src/transform/index.ts'
import { listFixtures, loadFixture } from '../test/fixtures/index.ts'

const [ref, which = 'generated'] = process.argv.slice(2)
if (!ref) throw new Error('usage: bench/transform-vs-checkout.ts CHECKOUT [generated|fixtures]')
const other: typeof extractAgentRuns = (await import(`${ref}/src/transform/index.ts`)).extractAgentRuns
const profileCount = Number(process.env.TRANSFORM_VS_PROFILES ?? 0)
if (profileCount > 0) {
  const { useProfiles } = await import('../src/transform/profiles/index.ts')
  const { tenUserProfiles } = await import('../src/transform/testing/user-profiles.ts')
  useProfiles(tenUserProfiles().slice(0, profileCount))
}

const payloads: Buffer[] =
  which === 'generated'
    ? chunks(generateAgentTraffic({ runs: 1000, seed: 1 }).spans, 50).map((batch) => encodeOtlpProto(batch))
    : Array.from({ length: 5 }).flatMap(() =>
        listFixtures(readdirSync(`${ref}/test/fixtures/data`)).map((entry) =>
          Buffer.from(loadFixture(entry).proto),
        ),
      )

/** Fresh spans every time: lazily decoded attributes read once stay decoded. */
function traces(): Span[][] {
  const spans: Span[] = []
  for (const payload of payloads) {
    const batch = readSpans(payload, 'otlp_proto')
    for (let i = 0; i < batch.length; i++) spans.push(batch.span(i))
  }
  return [...groupByTrace(spans).values()]
}

function cpuMicrosPerTrace(extract: typeof extractAgentRuns): number {
  const batch = traces()
  const start = process.cpuUsage()
  for (const trace of batch) extract(trace)
  const used = process.cpuUsage(start)
  return (used.user + used.system) / batch.length
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!
for (let i = 0; i < 4; i++) cpuMicrosPerTrace(other) + cpuMicrosPerTrace(extractAgentRuns)
const pairs = Number(process.env.TRANSFORM_VS_PAIRS ?? 25)
const theirs: number[] = []
const ours: number[] = []
const ratios: number[] = []
for (let i = 0; i < pairs; i++) {
  const otherFirst = i % 2 === 0
  const first = cpuMicrosPerTrace(otherFirst ? other : extractAgentRuns)
  const second = cpuMicrosPerTrace(otherFirst ? extractAgentRuns : other)
  theirs.push(otherFirst ? first : second)
  ours.push(otherFirst ? second : first)
  ratios.push(ours[i]! / theirs[i]!)
}
console.log(
  `${which}: ${ref} ${median(theirs).toFixed(1)} µs/trace, this checkout ${median(ours).toFixed(1)} µs/trace, ` +
    `ratio ${(median(ours) / median(theirs)).toFixed(3)}, median of ${pairs} pair ratios ${median(ratios).toFixed(3)}`,
)
