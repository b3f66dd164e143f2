/**
 * kill -9 of `tracescore run` (the built CLI, as users run it) five times during a stream of agent
 * runs. Proves at-least-once: every run is scored (its score spans reach a local OTLP receiver), a
 * committed offset never covers a run whose scores were not delivered, and the duplicates are at
 * most the runs that were scored but not yet committed when each kill hit.
 *
 * Scale: runs (5 spans each) are produced at FAULT_KILL_RUNS per 150 s (default 10,000, ~67 runs/s)
 * from before the first kill until the process started after the fifth has streamed 5 s more, at
 * most twice that: about 90 s and ~5,000 runs here, where a fixed 150 s of traffic went on
 * for a minute after the last kill. Each restart waits for the killed member's Kafka session to
 * expire before it gets partitions (the service runs with a 10 s `kafka.sessionTimeoutMs` here,
 * not the 30 s default, which only made each of those waits longer).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { type ServiceProcess, startService } from '../helpers/cli.ts'
import {
  deliveredRuns,
  type OtlpReceiver,
  scoresByRun,
  startOtlpReceiver,
} from '../helpers/fault-otlp-receiver.ts'
import { writeServiceConfig } from '../helpers/fault-process.ts'
import {
  commitViolations,
  groupOffsets,
  makeRuns,
  type Placement,
  produceRuns,
  runKey,
} from '../helpers/fault-traffic.ts'
import { createTopic, testBrokers, testKafka, uniqueName } from '../helpers/kafka.ts'
import { until } from '../helpers/poll.ts'

const RUNS = Number(process.env.FAULT_KILL_RUNS ?? 10_000)
const KILLS = 5
const PARTITIONS = 4
const SCORERS = ['answered', 'tool-success']

describe('kill -9 of tracescore run during a stream', () => {
  const kafka = testKafka('fault-kill')
  let receiver: OtlpReceiver | undefined
  let service: ServiceProcess | undefined
  afterAll(async () => {
    await service?.kill9()
    await receiver?.close()
  })

  it(`scores every run produced (${RUNS} per 150 s) at least once across ${KILLS} kills; duplicates bounded by what was in flight`, async () => {
    const topic = uniqueName('fault-kill')
    const groupId = uniqueName('fault-kill-group')
    await createTopic(kafka, topic, PARTITIONS)
    receiver = await startOtlpReceiver()
    const rx = receiver
    const config = writeServiceConfig(uniqueName('fault-kill'), {
      brokers: testBrokers(),
      topic,
      groupId,
      deadLetterTopic: `${topic}-dlq`,
      otlpUrl: rx.url,
      sessionTimeoutMs: 10_000,
    })
    // Traffic for 300 s at most: enough for the five kills on a slow machine.
    const planned = makeRuns(2 * RUNS, 7)

    // A run counts as delivered when all its scores arrived.
    const delivered = () => deliveredRuns(rx, SCORERS.length)
    // Scores that had arrived by a moment, per run key.
    const deliveredBefore = (at: number) => deliveredRuns(rx, SCORERS.length, at)

    service = await startService(config)
    const producer = kafka.producer()
    await producer.connect()
    let placements = new Map<string, Placement>()
    let produced = 0
    let killed = false // all kills done and the last process streamed: production stops
    const rate = RUNS / 150
    const producing = produceRuns(producer, topic, planned, {
      partitions: PARTITIONS,
      ratePerSec: rate,
      onBatch: (n) => {
        produced = n
      },
      stopped: () => killed,
    }).then((p) => {
      placements = p
    })
    // Offsets of produced runs are known only at the end; keep the invariant samples until then.
    const samples: { committed: Map<number, number>; delivered: Set<string> }[] = []
    let sampling = true
    const sampler = (async () => {
      while (sampling) {
        const committed = await groupOffsets(kafka, groupId, topic).catch(() => undefined)
        if (committed) samples.push({ committed, delivered: delivered() })
        await new Promise((r) => setTimeout(r, 2_000))
      }
    })()

    // Kill, note what was scored but not committed at that moment, restart.
    const inFlightAtKill: { scoredBy: number; committed: Map<number, number>; produced: number }[] = []
    const kills: (NodeJS.Signals | null)[] = []
    // Each kill hits a process in steady streaming: it has run 3 s and caught up with the producer
    // to within ~2 s of traffic (after a restart it first replays the backlog of the rejoin).
    for (let k = 0; k < KILLS; k++) {
      const readyAt = Date.now()
      await until(
        () => Date.now() - readyAt > 3_000 && delivered().size >= produced - 2 * rate,
        90_000,
        () => `catching up before kill ${k + 1} (${delivered().size} runs scored, ${produced} produced)`,
        250,
      )
      await new Promise((r) => setTimeout(r, 500 + Math.random() * 2_000))
      await service.kill9()
      kills.push((await service.exited).signal)
      // The process is dead: the group's committed offsets are what it managed to commit, and the
      // scores that arrive until the next process starts are the ones it sent (an export in flight
      // at the kill is counted when the receiver has read it, which can be after the SIGKILL).
      const committed = await groupOffsets(kafka, groupId, topic)
      inFlightAtKill.push({ scoredBy: Date.now(), committed, produced })
      service = await startService(config)
    }
    await new Promise((r) => setTimeout(r, 5_000))
    killed = true
    await producing
    await producer.disconnect()
    const runs = planned.filter((run) => placements.has(runKey(run)))
    // Every kill hit a stream: traffic kept coming after the last one.
    expect(runs.length).toBeGreaterThan(inFlightAtKill.at(-1)!.produced)

    await until(
      () => delivered().size >= runs.length,
      180_000,
      () => `all runs scored (${delivered().size}/${runs.length})`,
      500,
    )
    sampling = false
    await sampler
    // Let the last commits land, then stop gracefully.
    await until(
      async () => {
        const committed = await groupOffsets(kafka, groupId, topic)
        return [...Array(PARTITIONS).keys()].every(
          (p) =>
            committed.get(p) ===
            1 + Math.max(...[...placements.values()].filter((x) => x.partition === p).map((x) => x.offset)),
        )
      },
      30_000,
      () => 'final commit',
    )
    expect(await service.stop()).toBe(0)

    // Zero lost: every run has every scorer's span.
    const byRun = scoresByRun(rx)
    const lost = runs.filter((run) => (byRun.get(runKey(run))?.length ?? 0) < SCORERS.length)
    expect(lost.map(runKey)).toEqual([])
    expect(new Set([...rx.scores.values()].map((s) => s.scorer))).toEqual(new Set(SCORERS))
    expect(kills).toEqual(Array(KILLS).fill('SIGKILL'))

    // Offsets never ran ahead of delivery.
    for (const s of samples) expect(commitViolations(s.committed, placements, s.delivered)).toEqual([])

    // Duplicates: at most the scores of runs a killed process delivered but had not committed.
    let bound = 0
    for (const kill of inFlightAtKill) {
      const scored = deliveredBefore(kill.scoredBy)
      for (const [key, place] of placements) {
        if (scored.has(key) && place.offset >= (kill.committed.get(place.partition) ?? -1))
          bound += SCORERS.length
      }
    }
    const duplicates = rx.duplicates()
    console.log(
      `kill -9 x${KILLS}: ${runs.length} runs, ${rx.scores.size} score spans, ${duplicates} duplicate arrivals, ` +
        `bound ${bound} (scored-but-uncommitted at the kills), ${samples.length} commit samples`,
    )
    expect(duplicates).toBeLessThanOrEqual(bound)
  })
})
