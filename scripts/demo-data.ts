// Copies the demo's traffic into dist/demo-data/<producer>/<scenario>.pb (part of `npm run build`):
// a few recorded scenarios of every producer in test/fixtures/data, so the published package can
// run `tracescore demo` without the whole fixtures folder (several MB of .pb, .json and truths).
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
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
  for (const scenario of scenarios) {
    const file = join(from, producer.name, `${scenario}.pb`)
    if (!existsSync(file)) continue
    mkdirSync(join(to, producer.name), { recursive: true })
    copyFileSync(file, join(to, producer.name, `${scenario}.pb`))
    copied++
  }
}
if (copied === 0) throw new Error(`no demo traffic found under ${from}`)
