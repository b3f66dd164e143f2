/**
 * kill -9 of `tracescore run` (the built CLI, as users run it) five times during a stream of agent
 * runs, scored by a code scorer and a two-step LLM judge (score, then reason; the scripted judge
 * in this process, answering every request after 50–100 ms with a new random score or reason and
 * counting requests per (trace, agent span, scorer, step)), with the score ledger on. Proves
 * at-least-once: every run is scored (its score spans reach a local OTLP receiver), a committed
 * offset never covers a run whose scores were not delivered, and re-deliveries are at most the
 * runs that were scored but not yet committed when each kill hit. The ledger makes the rest exact:
 * no score span ever arrives with another value, every judge answer is kept in the ledger unless a
 * kill hit within a few seconds of its request, a kept answer is never asked for again, and the
 * repeated judge requests are at most the requests in flight at the kills (sent
 * by the killed process, answer never kept), all within a few seconds before a kill; the
 * service's own count of them (`tracescore_judge_requests_repeated_total`, scraped before each
 * kill) is at most the steps the ledger shows noted as asked again (not the judge's count: a step
 * noted by a process killed before its request reached the judge is asked again and counted, and
 * the judge saw it once). Then, with everything committed: a restart
 * asks the judge nothing, a restart that reads the whole topic again (a new group) nor a `replay`
 * ask it nothing and deliver every score unchanged, and `replay --rescore` asks it once per run.
 *
 * Scale: runs (5 spans each) are produced at FAULT_KILL_RUNS per 150 s (default 3,000, 20 runs/s;
 * the 10,000 runs need a judge answering ~70 requests/s on a loaded 2-core machine)
 * from before the first kill until the process started after the fifth has streamed 5 s more, at
 * most twice that: about 90–120 s and ~1,000–2,000 runs here, where a fixed 150 s of traffic went on
 * for a minute after the last kill (`FAULT_KILL_MIN_RUNS` keeps producing until that many). Each restart waits for the killed member's Kafka session to
 * expire before it gets partitions (the service runs with a 10 s `kafka.sessionTimeoutMs` here,
 * not the 30 s default, which only made each of those waits longer).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { runCli, type ServiceProcess, startService } from '../helpers/cli.ts'
import type { FaultJudge } from '../helpers/fault-judge.ts'
import {
  askedAgainAfterKept,
  JUDGE_STEPS,
  judgedScorerPreamble,
  keptAnswers,
  repeatedRequests,
  startCountingJudge,
  stepsNotedAgain,
  unexplainedRepeats,
  unkeptAtKills,
  unkeptAwayFromKills,
  unkeptAwayFromKillsDetail,
} from '../helpers/fault-ledger.ts'
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

const RUNS = Number(process.env.FAULT_KILL_RUNS ?? 3_000)
/** Runs produced at least, whenever the kills are done (`FAULT_KILL_MIN_RUNS=10000`: the whole stream). */
const MIN_RUNS = Math.min(2 * RUNS, Number(process.env.FAULT_KILL_MIN_RUNS ?? 0))
const KILLS = 5
const PARTITIONS = 4
const SCORERS = ['answered', 'judged']
/** A judge request made this long before a kill may be made again: the kill hit before its score was recorded. */
const IN_FLIGHT_WINDOW_MS = 5_000
const REPEATED = 'tracescore_judge_requests_repeated_total'
/**
 * Judge requests at once (`judges.defaultLimits.concurrency`). Two steps of 50–100 ms at the
 * issue's 10,000 runs per 150 s need about 16 on an idle machine; FAULT_KILL_JUDGE_CONCURRENCY=32
 * leaves room on a loaded one.
 */
const JUDGE_CONCURRENCY = Number(process.env.FAULT_KILL_JUDGE_CONCURRENCY ?? 16)
/** The judge's latency range in ms (`FAULT_KILL_JUDGE_MS=50-100`, the judge, by default). */
const JUDGE_MS = (process.env.FAULT_KILL_JUDGE_MS ?? '50-100').split('-').map(Number) as [number, number]

describe('kill -9 of tracescore run during a stream', () => {
  const kafka = testKafka('fault-kill')
  let receiver: OtlpReceiver | undefined
  let judge: FaultJudge | undefined
  let service: ServiceProcess | undefined
  afterAll(async () => {
    await service?.kill9()
    await receiver?.close()
    await judge?.close()
  })
  const topic = uniqueName('fault-kill')
  const groupId = uniqueName('fault-kill-group')
  /** The service's configuration for a consumer group. */
  const configFor = (group: string) =>
    writeServiceConfig(uniqueName('fault-kill'), {
      brokers: testBrokers(),
      topic,
      groupId: group,
      deadLetterTopic: `${topic}-dlq`,
      otlpUrl: receiver!.url,
      sessionTimeoutMs: 10_000,
      preamble: judgedScorerPreamble,
      scorers: '{ answered: { scorer: answeredScorer }, judged: { scorer: judged } }',
      judges: `{ defaultLimits: { concurrency: ${JUDGE_CONCURRENCY} }, timeoutMs: 10000 }`,
      ledger: '{ enabled: true }',
    })
  const env = () => ({ FAULT_JUDGE_URL: judge!.baseURL })
  /** Every run produced, once the stream is over. */
  let runs: { traceId: string; agentSpanId: string }[] = []

  it(`scores every run produced (${RUNS} per 150 s) across ${KILLS} kills: no score changes, no run judged twice but those judged as a kill hit`, async () => {
    await createTopic(kafka, topic, PARTITIONS)
    receiver = await startOtlpReceiver()
    judge = await startCountingJudge(() => JUDGE_MS[0] + Math.random() * (JUDGE_MS[1] - JUDGE_MS[0]))
    const rx = receiver
    const startedAt = Date.now()
    const config = configFor(groupId)
    // Traffic for 300 s at most: enough for the five kills on a slow machine.
    const planned = makeRuns(2 * RUNS, 7)

    // A run counts as delivered when all its scores arrived.
    const delivered = () => deliveredRuns(rx, SCORERS.length)
    // Scores that had arrived by a moment, per run key.
    const deliveredBefore = (at: number) => deliveredRuns(rx, SCORERS.length, at)

    service = await startService(config, { env: env() })
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
      stopped: () => killed && produced >= MIN_RUNS,
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
    const killedAt: number[] = []
    /** Judge requests received and not answered yet, at each kill (the judge's own count). */
    const judgeInFlight: number[] = []
    /** Requests each killed process counted as asked again (scraped just before its kill). */
    const countedRepeats: number[] = []
    /** Each killed process's output, for a failure's message. */
    const outputs: string[] = []
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
      countedRepeats.push((await service.metric(REPEATED).catch(() => undefined)) ?? 0)
      judgeInFlight.push(judge.inFlight())
      await service.kill9()
      // When the process is known dead, not when the signal was sent: the judge (on this process's
      // event loop) stamps a request when it gets to it, so one the process sent just before the
      // SIGKILL may be stamped a few ms after it (a CI run saw six at +6 ms, counted as "away from
      // the kills"). The next process starts seconds later, so nothing of it falls before this.
      killedAt.push(Date.now())
      outputs.push(service.output())
      kills.push((await service.exited).signal)
      // The process is dead: the group's committed offsets are what it managed to commit, and the
      // scores that arrive until the next process starts are the ones it sent (an export in flight
      // at the kill is counted when the receiver has read it, which can be after the SIGKILL).
      const committed = await groupOffsets(kafka, groupId, topic)
      inFlightAtKill.push({ scoredBy: Date.now(), committed, produced })
      service = await startService(config, { env: env() })
    }
    await new Promise((r) => setTimeout(r, 5_000))
    killed = true
    await producing
    await producer.disconnect()
    runs = planned.filter((run) => placements.has(runKey(run)))
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
    countedRepeats.push((await service.metric(REPEATED)) ?? 0)
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
    const byKey = judge!.byKey
    const repeats = repeatedRequests(byKey)
    // Requests in flight at the kills: sent by the killed process, answer never kept in the ledger.
    const kept = await keptAnswers(kafka, `${topic}.score_ledger`)
    const notedAgain = await stepsNotedAgain(kafka, `${topic}.score_ledger`)
    const inFlight = unkeptAtKills(judge!, kept, killedAt)
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
    console.log(
      `kill -9 x${KILLS}: ${runs.length} runs, ${rx.scores.size} score spans, ${duplicates} re-deliveries ` +
        `(bound ${bound}: scored-but-uncommitted at the kills), ${rx.changed()} changed, ` +
        `${byKey.size} judge steps asked, ${judge!.log.length} judge requests, ` +
        `${repeats} repeated judge requests, in flight at the kills ${sum(inFlight)} ` +
        `(answer not kept: ${inFlight.join('/')}; at the judge, not answered yet: ${judgeInFlight.join('/')}), ` +
        `counted by the service ${sum(countedRepeats)} (${countedRepeats.join('/')}), steps noted again in the ledger ${notedAgain}, ` +
        `${samples.length} commit samples`,
    )
    expect(duplicates).toBeLessThanOrEqual(bound)
    // The ledger's guarantees: a re-delivered score is the recorded one, a recorded run is not judged again.
    expect(rx.changed()).toBe(0)
    expect(byKey.size).toBe(runs.length * JUDGE_STEPS)
    // Every answer is kept unless a kill cut its request short; a kept answer is never asked for
    // again: only requests in flight at a kill are repeated.
    expect(
      unkeptAwayFromKills(judge!, kept, killedAt, IN_FLIGHT_WINDOW_MS),
      `answers not kept away from the kills (${killedAt.map((at) => at - startedAt).join(', ')} ms in):\n` +
        unkeptAwayFromKillsDetail(judge!, kept, killedAt, IN_FLIGHT_WINDOW_MS, startedAt).join('\n') +
        `\nledger warnings:\n${[...outputs, service.output()]
          .flatMap((out) =>
            out.split('\n').filter((line) => /ledger|could not be kept|revoked|joined|rebalanc/.test(line)),
          )
          .slice(0, 40)
          .join('\n')}`,
    ).toBe(0)
    expect(askedAgainAfterKept(judge!, kept)).toEqual([])
    expect(repeats).toBeLessThanOrEqual(sum(inFlight))
    // The service's own count of repeated requests: never more than the steps the ledger shows noted
    // as asked again. Not the judge's count: a step noted by a killed process whose request never
    // reached the judge is asked again and counted, though the judge saw it once (CI, 2026-12-06:
    // 48 counted, 47 seen by the judge).
    expect(sum(countedRepeats)).toBeLessThanOrEqual(notedAgain)
    const faults = killedAt.map((at) => ({ from: at, to: at }))
    expect(unexplainedRepeats(byKey, faults, IN_FLIGHT_WINDOW_MS)).toEqual([])
  })

  /** Judge requests so far, and score arrivals so far. */
  const counts = () => ({ judged: judge!.log.length, arrivals: receiver!.arrivals() })

  it('a restart after everything was committed asks the judge nothing; one that reads the topic again (a new group) re-delivers every score unchanged, unjudged', async () => {
    expect(runs.length).toBeGreaterThan(0)
    const before = counts()
    service = await startService(configFor(groupId), { env: env() })
    await new Promise((r) => setTimeout(r, 5_000))
    expect(await service.stop()).toBe(0)
    expect(counts()).toEqual(before)

    service = await startService(configFor(uniqueName('fault-kill-regroup')), { env: env() })
    const spans = runs.length * SCORERS.length
    await until(
      () => receiver!.arrivals() >= before.arrivals + spans,
      180_000,
      () => `every score delivered again (${receiver!.arrivals() - before.arrivals}/${spans})`,
      500,
    )
    expect(await service.metric('tracescore_ledger_lookups_total')).toBe(spans)
    expect(await service.stop()).toBe(0)
    expect(judge!.log.length).toBe(before.judged)
    expect(receiver!.changed()).toBe(0)
  })

  it('replay of the scored range asks the judge nothing; with --rescore once per run', async () => {
    expect(runs.length).toBeGreaterThan(0)
    const before = counts()
    const spans = runs.length * SCORERS.length
    const replay = await runCli(['replay', '--from', '0', '--config', configFor(groupId)], {
      env: env(),
      timeoutMs: 240_000,
    })
    expect(replay.code, replay.stderr.slice(-2_000)).toBe(0)
    expect(receiver!.arrivals()).toBe(before.arrivals + spans)
    expect(judge!.log.length).toBe(before.judged)
    expect(receiver!.changed()).toBe(0)

    const judgedBefore = new Map([...judge!.byKey].map(([key, times]) => [key, times.length]))
    const rescore = await runCli(['replay', '--from', '0', '--rescore', '--config', configFor(groupId)], {
      env: env(),
      timeoutMs: 240_000,
    })
    expect(rescore.code, rescore.stderr.slice(-2_000)).toBe(0)
    const judgedAgain = [...judge!.byKey].filter(
      ([key, times]) => times.length !== judgedBefore.get(key)! + 1,
    )
    expect(judgedAgain.map(([key]) => key)).toEqual([])
    expect(judge!.byKey.size).toBe(runs.length * JUDGE_STEPS)
    // The judge answered differently: the rescored values replace the recorded ones.
    expect(receiver!.changed()).toBeGreaterThan(0)
  })
})
