import { defineConfig } from 'vitest/config'

// Three tiers (see ../README.md): unit tests need nothing; integration tests need the local
// Kafka broker (scripts/kafka-start.sh); e2e tests need the broker and Phoenix.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/unit/**/*.test.ts'],
          typecheck: {
            enabled: true,
            include: ['src/**/*.test-d.ts', 'test/**/*.test-d.ts'],
            tsconfig: './tsconfig.json',
          },
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
})
