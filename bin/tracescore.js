#!/usr/bin/env node
// The `tracescore` command: runs the built CLI (dist/, built by `npm ci` through `prepare`), after
// checking that this Node.js can run it (an older one gets a message and exit code 2).
import { nodeVersionProblem } from './node-version.js'

const problem = nodeVersionProblem()
if (problem) {
  console.error(problem)
  process.exit(2)
}
const { main } = await import('../dist/cli.js')
process.exitCode = await main(process.argv.slice(2))
