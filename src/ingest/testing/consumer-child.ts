/**
 * A tracescore span source in a process of its own, for tests that kill it (SIGKILL) between the
 * downstream acknowledgement and the offset commit. Environment: TOPIC, GROUP_ID, KAFKA_BROKERS,
 * COMMIT_AFTER (commit explicitly once this many runs were acknowledged; no periodic commits).
 * Prints one JSON line per acknowledged run (`{"run":"<span id>"}`) and `{"committed":n}` after the commit.
 */

import { testKafka } from '../../../test/helpers/kafka.ts'
import { createKafkaSource, type IngestedTrace } from '../kafka-source.ts'
import { isGeneratedAgentSpan } from './agent-traffic.ts'

const commitAfter = Number(process.env.COMMIT_AFTER ?? '0')
let acknowledged = 0
const source = createKafkaSource<IngestedTrace>({
  kafka: testKafka('consumer-child'),
  topic: process.env.TOPIC!,
  groupId: process.env.GROUP_ID!,
  fromBeginning: true,
  isAgentRunSpan: isGeneratedAgentSpan,
  settleMs: 300,
  tickMs: 50,
  commitIntervalMs: false, // commits only when COMMIT_AFTER says (not even when caught up)
  maxInFlightTraces: 1,
  sessionTimeout: 6_000, // the broker minimum: the group notices the kill quickly
  process: async (trace) => trace,
  targets: [
    {
      name: 'stdout',
      async deliver(trace) {
        // The run is "scored and delivered" here; the commit comes later (or never: SIGKILL).
        for (const run of trace.agentSpanIds) process.stdout.write(`${JSON.stringify({ run })}\n`)
        acknowledged++
        if (acknowledged === commitAfter) {
          setTimeout(async () => {
            await source.commit()
            process.stdout.write(`${JSON.stringify({ committed: acknowledged })}\n`)
          }, 0)
        }
        await new Promise((resolve) => setTimeout(resolve, 20))
      },
    },
  ],
})
await source.start()
process.stdout.write(`${JSON.stringify({ started: true })}\n`)
