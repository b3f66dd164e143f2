#!/usr/bin/env bash
# The whole test suite (the README's test command runs this through `npm test`):
# lint + typecheck, unit tests, then integration tests on a real Kafka broker and
# end-to-end tests on the broker plus a real Phoenix server, both started by our own scripts.
#
# Every step runs even when an earlier one failed (one CI run shows every failure); the script
# ends with one summary line and exits non-zero if any step failed.
set -uo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n\033[1m== %s ==\033[0m\n' "$*"; }
failed_steps=()
# run NAME CMD...: runs a step, remembering its failure instead of stopping.
run() {
  local name=$1
  shift
  "$@" || failed_steps+=("$name")
}

# Each vitest tier also writes a JSON report, summed into one closing line at the end.
results=.test-results
rm -rf "$results" && mkdir -p "$results"
tier() { npx vitest run --project "$1" --reporter=default --reporter=json --outputFile.json="$results/$1.json" "${@:2}"; }

# One plain closing line for every tier together (CI reads it): "N passed, N failed", then the
# steps that failed; printed however the script ends.
summary() {
  local code=$?
  node -e '
const fs = require("node:fs")
let passed = 0, failed = 0, skipped = 0
for (const f of fs.readdirSync(process.argv[1])) {
  try {
    const r = JSON.parse(fs.readFileSync(`${process.argv[1]}/${f}`, "utf8"))
    passed += r.numPassedTests; failed += r.numFailedTests; skipped += r.numPendingTests + r.numTodoTests
  } catch {}
}
console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`)
' "$results"
  if ((${#failed_steps[@]})); then
    echo "failed steps: ${failed_steps[*]}"
    exit 1
  fi
  exit "$code"
}
trap summary EXIT

step "lint (biome)"
run lint npx biome check .

step "typecheck (tsc)"
run typecheck npx tsc -p tsconfig.json --noEmit

step "build (dist/, used by the CLI tests)"
run build npm run build --silent

step "Prometheus (promtool for the alert-rule tests, prometheus for the e2e alert test)"
# Exit 3: not installable on this machine (no apt-get); the tests that need it say so.
run prometheus-install bash -c 'bash scripts/prometheus-install.sh || [[ $? == 3 ]]'

# The Helm chart tests (test/unit/helm-chart.test.ts) run helm and kubeconform built from Go
# modules, against the Kubernetes, KEDA and Prometheus Operator schemas taken from Go modules, all
# cached like the Collector: a minute or two the first time, a hash check afterwards.
unit_args=()
if [[ -f test/unit/helm-chart.test.ts ]]; then
  if command -v go >/dev/null; then
    step "Go programs for the Helm chart tests: helm, kubeconform, schemas (cached in ${TRACESCORE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tracescore})"
    run helm-tools bash -c 'bash scripts/helm-build.sh && bash scripts/kubeconform-build.sh && bash scripts/kube-schemas.sh'
  else
    step "Go programs for the Helm chart tests: skipped (no go command)"
    echo "go is not installed: test/unit/helm-chart.test.ts (helm and kubeconform built from Go modules) will not run; install Go 1.26 to run it"
    unit_args=(--exclude test/unit/helm-chart.test.ts)
  fi
fi

step "unit tests (vitest, type tests included)"
run unit tier unit "${unit_args[@]}"

if compgen -G "test/integration/*.test.ts" >/dev/null; then
  step "integration tests (real Kafka broker, with its SASL_SSL listener)"
  if KAFKA_SASL_SSL=1 bash scripts/kafka-start.sh; then run integration tier integration; else failed_steps+=(kafka-start); fi
fi

# The Collector e2e tests run the OpenTelemetry Collector and Jaeger, built from Go modules
# (tools/) into a cache that outlives the clone: minutes the first time, a hash check afterwards.
e2e_args=()
if compgen -G "test/e2e/collector-*.test.ts" >/dev/null; then
  if command -v go >/dev/null; then
    step "Go programs: OpenTelemetry Collector and Jaeger (cached in ${TRACESCORE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/tracescore})"
    run go-build bash -c 'bash scripts/otelcol-build.sh && bash scripts/jaeger-build.sh'
  else
    step "Go programs: skipped (no go command)"
    echo "go is not installed: test/e2e/collector-*.test.ts (Collector and Jaeger built from Go modules) will not run; install Go 1.26 to run them"
    e2e_args=(--exclude 'test/e2e/collector-*.test.ts')
  fi
fi

if compgen -G "test/e2e/*.test.ts" >/dev/null; then
  step "end-to-end tests (Kafka + Phoenix; Jaeger and the Collector where Go is installed)"
  if bash scripts/kafka-start.sh && bash scripts/phoenix-start.sh && { ((${#e2e_args[@]})) || bash scripts/jaeger-start.sh; }; then
    run e2e tier e2e "${e2e_args[@]}"
  else failed_steps+=(e2e-services); fi
fi

if compgen -G "test/fault/*.test.ts" >/dev/null; then
  step "fault injection (kill -9, broker restart, backend down, hostile input, failing judge)"
  # The broker-restart cases (project fault-broker) run on private brokers of their own and are
  # mostly waiting for outages and sessions: they run in the background, beside the other fault
  # files on the shared broker; their output follows those files' output.
  fault_broker_log=$results/fault-broker.log
  tier fault-broker >"$fault_broker_log" 2>&1 &
  fault_broker_pid=$!
  if bash scripts/kafka-start.sh; then run fault tier fault; else failed_steps+=(kafka-start); fi
  wait "$fault_broker_pid" || failed_steps+=(fault-broker)
  step "fault injection: broker restarts (project fault-broker, ran beside the above)"
  cat "$fault_broker_log"
fi
