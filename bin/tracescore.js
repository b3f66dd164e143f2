#!/usr/bin/env node
// The `tracescore` command. Runs the built CLI (dist/, made by `npm run build`, which `npm ci`
// runs through `prepare`).
import('../dist/cli.js').catch((error) => {
  console.error(error)
  process.exit(1)
})
