// Self time per function and per source file of the CPU profiles in a directory (node --cpu-prof):
// `node bench/profile-summary.mjs DIR [top]`. Only the largest profile (the main thread) is read.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

const dir = process.argv[2]
const top = Number(process.argv[3] ?? 40)
const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))
const file = files.map((f) => join(dir, f)).sort((a, b) => statSync(b).size - statSync(a).size)[0]
const profile = JSON.parse(readFileSync(file, 'utf8'))
const byId = new Map(profile.nodes.map((n) => [n.id, n]))
const selfUs = new Map()
profile.samples.forEach((id, i) => {
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
})
const total = [...selfUs.values()].reduce((a, b) => a + b, 0)
const idle = new Set(['(idle)', '(program)', '(garbage collector)'])
const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us)
const whereOf = (n) =>
  n.callFrame.url.replace(/^.*\/(node_modules\/)/, '$1').replace(/^file:\/\/.*?\/(src|bench|test)\//, '$1/')
const nameOf = (n) =>
  `${n.callFrame.functionName || '(anonymous)'} ${whereOf(n)}:${n.callFrame.lineNumber + 1}`
const fns = new Map()
const urls = new Map()
for (const [id, us] of selfUs) {
  const { functionName } = byId.get(id).callFrame
  add(fns, nameOf(byId.get(id)), us)
  add(urls, idle.has(functionName) ? functionName : whereOf(byId.get(id)) || '(native)', us)
}
// Total (inclusive) time per function: each sample counts once for every distinct function on its stack.
const parent = new Map()
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)

const totals = new Map()
for (const [id, us] of selfUs) {
  const seen = new Set()
  for (let at = id; at !== undefined; at = parent.get(at)) seen.add(nameOf(byId.get(at)))
  for (const name of seen) add(totals, name, us)
}
const pct = (us) => `${((100 * us) / total).toFixed(1)}%`.padStart(6)
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled`)
console.log('\nby file:')
for (const [k, us] of [...urls].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(pct(us), k)
console.log('\ntotal time by function:')
for (const [k, us] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(pct(us), k)
console.log('\nself time by function:')
for (const [k, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(pct(us), k)
