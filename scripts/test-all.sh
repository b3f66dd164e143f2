#!/usr/bin/env bash
# The whole test suite (the README's test command runs this through `npm test`):
# lint + typecheck, unit tests, then integration tests on a real Kafka broker and
# end-to-end tests on the broker plus a real Phoenix server, both started by our own scripts.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n\033[1m== %s ==\033[0m\n' "$*"; }

# Each vitest tier also writes a JSON report, summed into one closing line at the end.
results=.test-results
rm -rf "$results" && mkdir -p "$results"
tier() { npx vitest run --project "$1" --reporter=default --reporter=json --outputFile.json="$results/$1.json"; }

step "lint (biome)"
npx biome check .

step "typecheck (tsc)"
npx tsc -p tsconfig.json --noEmit

step "build (dist/, used by the CLI tests)"
npm run build --silent

step "Prometheus (promtool for the alert-rule tests, prometheus for the e2e alert test)"
bash scripts/prometheus-install.sh || [[ $? == 3 ]] # 3: not installable here; the tests say so

step "unit tests (vitest, type tests included)"
tier unit

if compgen -G "test/integration/*.test.ts" >/dev/null; then
  step "integration tests (real Kafka broker, with its SASL_SSL listener)"
  KAFKA_SASL_SSL=1 bash scripts/kafka-start.sh
  tier integration
fi

if compgen -G "test/e2e/*.test.ts" >/dev/null; then
  step "end-to-end tests (Kafka + Phoenix)"
  bash scripts/kafka-start.sh
  bash scripts/phoenix-start.sh
  tier e2e
fi

if compgen -G "test/fault/*.test.ts" >/dev/null; then
  step "fault injection (kill -9, broker restart, backend down, hostile input, failing judge)"
  bash scripts/kafka-start.sh
  tier fault
fi

# One plain closing line for every tier together (CI reads it): "N passed, N failed".
node -e '
const fs = require("node:fs")
let passed = 0, failed = 0, skipped = 0
for (const f of fs.readdirSync(process.argv[1])) {
  const r = JSON.parse(fs.readFileSync(`${process.argv[1]}/${f}`, "utf8"))
  passed += r.numPassedTests; failed += r.numFailedTests; skipped += r.numPendingTests + r.numTodoTests
}
console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`)
' "$results"
