import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

// Three tiers (see ../README.md): unit tests need nothing; integration tests need the local
// Kafka broker (scripts/kafka-start.sh); e2e tests need the broker and Phoenix.
export default defineConfig({
  // Config modules import the package by name, as users' configs do; tests resolve it to the sources.
  resolve: { alias: { tracescore: fileURLToPath(new URL('./src/index.ts', import.meta.url)) } },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/unit/**/*.test.ts'],
          // No unit test asserts a duration (they count operations); the timeout only catches a
          // hang. The seeded property tests (300 generated requests, every bit flip) take 1-3 s
          // alone and over 5 s (vitest's default) on the shared 2-core machine under load 20.
          testTimeout: 30_000,
          typecheck: {
            enabled: true,
            include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'],
            tsconfig: './tsconfig.json',
          },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          setupFiles: ['test/helpers/kafkajs-setup.ts'],
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          setupFiles: ['test/helpers/kafkajs-setup.ts'],
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'fault',
          include: ['test/fault/**/*.test.ts'],
          // broker-restart.test.ts is its own project (below), run beside this one by
          // scripts/test-all.sh; broker-restart-logs.test.ts (one private broker) runs here.
          exclude: ['test/fault/broker-restart.test.ts'],
          setupFiles: ['test/helpers/kafkajs-setup.ts'],
          testTimeout: 600_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          // Private brokers only (never the shared one), mostly waiting: runs beside the fault
          // project, its cases side by side, one per private broker (FAULT_BROKER_LANES).
          name: 'fault-broker',
          include: ['test/fault/broker-restart.test.ts'],
          setupFiles: ['test/helpers/kafkajs-setup.ts'],
          testTimeout: 600_000,
          hookTimeout: 300_000,
          maxConcurrency: Math.max(1, Number(process.env.FAULT_BROKER_LANES ?? 3)),
        },
      },
    ],
  },
})
