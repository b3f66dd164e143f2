/**
 * Setup of the test projects that talk to Kafka (vitest.config.ts): the test process's own kafkajs
 * clients (admin, producers, readers made with `new Kafka`) get the fix of kafkajs's idle 1 ms
 * timer loop that tracescore applies to its own (src/ingest/kafkajs-request-queue.ts), so they
 * neither spin nor print Node 24's `TimeoutNegativeWarning` for it.
 */
import { fixKafkajsRequestQueue } from '../../src/ingest/kafkajs-request-queue.ts'

fixKafkajsRequestQueue()
