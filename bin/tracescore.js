#!/usr/bin/env node
// The `tracescore` command: runs the built CLI (dist/, built by `npm ci` through `prepare`).
import { main } from '../dist/cli.js'

process.exitCode = await main(process.argv.slice(2))
