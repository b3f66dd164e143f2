#!/usr/bin/env bash
# The whole test suite (the README's test command runs this through `npm test`):
# lint + typecheck, unit tests, then integration tests on a real Kafka broker and
# end-to-end tests on the broker plus a real Phoenix server, both started by our own scripts.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n\033[1m== %s ==\033[0m\n' "$*"; }

step "lint (biome)"
npx biome check .

step "typecheck (tsc)"
npx tsc -p tsconfig.json --noEmit

step "build (dist/, used by the CLI tests)"
npm run build --silent

step "unit tests (vitest, type tests included)"
npx vitest run --project unit

if compgen -G "test/integration/*.test.ts" >/dev/null; then
  step "integration tests (real Kafka broker)"
  bash scripts/kafka-start.sh
  npx vitest run --project integration
fi

if compgen -G "test/e2e/*.test.ts" >/dev/null; then
  step "end-to-end tests (Kafka + Phoenix)"
  bash scripts/kafka-start.sh
  bash scripts/phoenix-start.sh
  npx vitest run --project e2e
fi

if compgen -G "test/fault/*.test.ts" >/dev/null; then
  step "fault injection (kill -9, broker restart, backend down, hostile input, failing judge)"
  bash scripts/kafka-start.sh
  npx vitest run --project fault
fi
