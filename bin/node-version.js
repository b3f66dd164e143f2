// Whether this Node.js can run tracescore, checked before anything else is loaded: the built CLI
// imports what older Nodes lack (node:zlib's zstd, AI SDK 7's Node 22 APIs), which would otherwise
// end in a SyntaxError at import time that says nothing about Node. Plain JavaScript, no imports of
// the package's own code, so it runs on any Node.
import { readFileSync } from 'node:fs'

/** The `engines.node` range of the package, e.g. `^22.18.0 || >=23.6.0`. */
export function requiredRange() {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  return pkg.engines.node
}

const parse = (version) =>
  version
    .replace(/^v/, '')
    .split('.')
    .map((part) => Number.parseInt(part, 10) || 0)

function atLeast(version, floor) {
  for (let i = 0; i < 3; i++) if (version[i] !== floor[i]) return version[i] > floor[i]
  return true
}

/** Whether `version` (`20.20.2`) satisfies `range`, made of `^x.y.z` and `>=x.y.z` alternatives. */
export function satisfies(version, range) {
  const v = parse(version)
  return range.split('||').some((alternative) => {
    const text = alternative.trim()
    if (text.startsWith('>=')) return atLeast(v, parse(text.slice(2)))
    if (text.startsWith('^')) {
      const floor = parse(text.slice(1))
      return v[0] === floor[0] && atLeast(v, floor)
    }
    return false
  })
}

/** The message for a Node.js too old for tracescore, or undefined when this one will do. */
export function nodeVersionProblem(version = process.versions.node, execPath = process.execPath) {
  const range = requiredRange()
  if (satisfies(version, range)) return undefined
  return [
    `tracescore needs Node.js ${range} (package.json "engines"); this is Node.js ${version} (${execPath}).`,
    'Install a newer Node.js (https://nodejs.org, or `nvm install 24`), or, in a checkout of tracescore,',
    'run it through npm (`npm run demo`, `npx tracescore …`): `npm ci` installs Node 24 into node_modules.',
  ].join('\n')
}
