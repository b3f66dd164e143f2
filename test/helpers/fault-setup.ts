/**
 * Setup of the fault projects (vitest.config.ts): the test process's own kafkajs clients (admin,
 * producers, readers) schedule `setTimeout(fn, throttledUntil - Date.now())` with throttledUntil
 * -1 when the broker never throttled, and Node prints a `TimeoutNegativeWarning: -1796… is a
 * negative number` for it: kafkajs's harmless quirk (Node clamps it to the 1 ms kafkajs means), not
 * ours. The CLI drops exactly that warning (src/ops/kafkajs-warning-filter.ts); so do the tests.
 */
import { filterKafkajsTimeoutWarning } from '../../src/ops/kafkajs-warning-filter.ts'

filterKafkajsTimeoutWarning()
