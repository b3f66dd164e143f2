// Copies the demo's traffic into dist/demo-data/<producer>/<scenario>.pb (part of `npm run build`):
// a few recorded scenarios of every producer in test/fixtures/data, so the published package can
// run `tracescore demo` without the whole fixtures folder (several MB of .pb, .json and truths).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'

/** Scenarios every producer recorded: a plain answer, a failed tool call, agents calling agents. */
const scenarios = ['single-turn', 'tool-error', 'nested-agents']

const root = join(import.meta.dirname, '..')
const from = join(root, 'test/fixtures/data')
const to = join(root, 'dist/demo-data')

rmSync(to, { recursive: true, force: true })
let copied = 0
for (const producer of readdirSync(from, { withFileTypes: true })) {
  if (!producer.isDirectory()) continue
  // Traces that record no text (ADK Go and Spring AI keep prompts and answers out of their spans)
  // give the example scorers nothing to score: the demo shows scores.
  if (recordsNoText(join(from, producer.name))) continue
  for (const scenario of scenarios) {
    const file = join(from, producer.name, `${scenario}.pb`)
    if (!existsSync(file)) continue
    mkdirSync(join(to, producer.name), { recursive: true })
    copyFileSync(file, join(to, producer.name, `${scenario}.pb`))
    copied++
  }
}
if (copied === 0) throw new Error(`no demo traffic found under ${from}`)

/** A producer's first ground truth (every fixture of a producer follows the same convention). */
function firstTruth(dir: string): { convention?: string; runs?: { notRecorded?: string[] }[] } {
  const truth = readdirSync(dir).find((file) => file.endsWith('.truth.json'))
  return truth === undefined ? {} : JSON.parse(readFileSync(join(dir, truth), 'utf8'))
}

/** Whether a producer's spans record no model text (its truth lists `text` as not recorded). */
function recordsNoText(dir: string): boolean {
  return firstTruth(dir).runs?.some((run) => run.notRecorded?.includes('text')) ?? false
}
