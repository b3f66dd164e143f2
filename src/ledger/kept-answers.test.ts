/**
 * Judge answers kept in the ledger, with plain data: a two-step judge scorer (generateScore, then
 * generateReason) scoring through the ledger stage on an in-memory ledger topic. A process dies
 * after the first step's answer arrived and while the second step's request is under way; the
 * next process scores the run again: the first step takes the kept answer (no request), the
 * second asks again and counts it as repeated. A changed prompt, a new scorer version and
 * `rescore` ask again; once the decision is recorded the answers are dropped.
 */
import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../config/define-config.ts'
import { decodeOtlpTraces } from '../ingest/decode/index.ts'
import type { IngestedTrace } from '../ingest/kafka-source.ts'
import { byTrace, encodeOtlpProto, generateAgentTraffic } from '../ingest/testing/agent-traffic.ts'
import { silentLogger } from '../ops/logger.ts'
import { createMetrics } from '../ops/metrics.ts'
import { scoreTrace } from '../score-trace.ts'
import { createScorer } from '../scoring/create-scorer.ts'
import { createJudge } from '../scoring/judge.ts'
import type { JudgeLimiter } from '../scoring/judge-limiter.ts'
import { type ScriptedJudge, scriptedJudge } from '../scoring/testing/scripted-judge.ts'
import { batchedWrites, isAnswerKey } from './kept-answers.ts'
import { createLedgerStage } from './ledger-stage.ts'
import { createScoreLedger } from './score-ledger.ts'
import { createMemoryLedgerLog, type MemoryLedgerLog } from './testing/memory-ledger-log.ts'

/** A two-step judge: a score, then a reason; `wording` changes the score step's prompt. */
function twoStepScorer(judge: ScriptedJudge, wording = 'Rate the answer') {
  return createScorer({
    id: 'judged',
    description: 'a two-step judge',
    type: 'agent',
    judge: { model: judge.model, instructions: 'Rate agent answers from 0 to 1.' },
  })
    .generateScore({
      description: 'score',
      // The run's text goes in fenced (a fresh nonce per request): the kept answer must still match.
      createPrompt: ({ run }) => `${wording}: ${JSON.stringify(run.output)}. Answer {"score": number}.`,
    })
    .generateReason({
      description: 'reason',
      createPrompt: ({ score }) => `Explain the score ${score}.`,
    })
}

/**
 * A judge: random scores for the score step, a reason for the other. `dies` fails the reason
 * requests: the process is taken as killed while that request was under way (nothing of the
 * scoring is delivered or recorded but what the steps kept).
 */
function judgeOf(options: { dies?: boolean } = {}) {
  return scriptedJudge([
    (call) => {
      const text = JSON.stringify(call.prompt)
      if (text.includes('Explain the score'))
        return options.dies ? new Error('killed while asking') : `reason ${Math.random()}`
      return `{"score": ${Math.random()}}`
    },
  ])
}

/** One run's trace as the source hands it over, its records from partition 0. */
function oneTrace(): IngestedTrace {
  const traffic = generateAgentTraffic({ runs: 1, seed: 5 })
  const [traceId, spans] = [...byTrace(traffic.spans)][0]!
  return {
    traceId,
    spans: decodeOtlpTraces(encodeOtlpProto(spans), 'otlp_proto'),
    recordRefs: [{ partition: 0, offset: '0' }],
  } as unknown as IngestedTrace
}

/** A process: the ledger stage on the shared ledger topic, and scoring of a trace through it. */
async function startProcess(
  log: MemoryLedgerLog,
  scorer: unknown,
  options: { rescore?: boolean; limiter?: JudgeLimiter } = {},
) {
  const config = resolveConfig({ ledger: { enabled: true }, scorers: { judged: { scorer } } as never }, {})
  const metrics = createMetrics()
  const stage = createLedgerStage({
    config,
    kafka: {} as never,
    producer: {} as never,
    admin: {} as never,
    logger: silentLogger(),
    metrics,
    log,
    rescore: options.rescore,
  })
  await stage.start('spans', new AbortController().signal)
  stage.onAssigned([0])
  const score = async (trace: IngestedTrace) => {
    const fromLedger = await stage.scoring()!.prepare(trace)
    const scores = await scoreTrace(trace.spans, {
      scorers: config.scorers,
      judge: createJudge(options.limiter ? { limiter: options.limiter } : {}),
      recorded: fromLedger.recorded,
      answers: fromLedger.answers,
    })
    return { scores, recording: fromLedger.recording(scores) }
  }
  const count = async (name: string) =>
    (await metrics.registry.getSingleMetric(name)!.get()).values.reduce((n, v) => n + v.value, 0)
  return { stage, score, count }
}

/** Scores the trace in a process whose judge never answers the reason step; resolves once the score step's answer is kept. */
async function dieDuringReason(log: MemoryLedgerLog, trace: IngestedTrace) {
  const judge = judgeOf({ dies: true })
  const process = await startProcess(log, twoStepScorer(judge))
  await process.score(trace)
  const kept = () => log.records(0).filter((r) => isAnswerKey(String(r.key)))
  // The note that the reason request is under way goes out with the next write, or alone after 20 ms.
  for (let i = 0; i < 100 && kept().length < 2; i++) await new Promise((r) => setTimeout(r, 5))
  // The score step's answer (its note went in the same write, replaced), the reason step's note: the process dies here.
  expect(
    kept()
      .map((r) => JSON.parse(String(r.value)))
      .map((v) => [v.step, 'answer' in v]),
  ).toEqual([
    ['generateScore', true],
    ['generateReason', false],
  ])
  return { scoreAnswer: firstScore(log) }
}

/** The score the kept generateScore answer holds. */
function firstScore(log: MemoryLedgerLog): number {
  const values = log.records(0).map((r) => JSON.parse(String(r.value)))
  return values.find((v) => v.step === 'generateScore' && v.answer)!.answer.output.score
}

describe('judge answers kept in the score ledger', () => {
  it('a restarted scoring takes the kept answer of a step (no request) and asks again only the step under way', async () => {
    const log = createMemoryLedgerLog(1)
    const trace = oneTrace()
    const { scoreAnswer } = await dieDuringReason(log, trace)

    const judge = judgeOf()
    const next = await startProcess(log, twoStepScorer(judge))
    const { scores } = await next.score(trace)
    // Only the reason step asked: the score step's answer came from the ledger.
    expect(judge.calls.map((c) => JSON.stringify(c.prompt).includes('Explain the score'))).toEqual([true])
    expect(scores.records[0]!.score).toBe(scoreAnswer)
    expect(scores.records[0]!.reason).toMatch(/^reason /)
    expect(await next.count('tracescore_judge_answers_reused_total')).toBe(1)
    // The reason request was under way when the first process died: asked again, counted.
    expect(await next.count('tracescore_judge_requests_repeated_total')).toBe(1)
  })

  it('a changed prompt asks the judge again (same scorer version)', async () => {
    const log = createMemoryLedgerLog(1)
    const trace = oneTrace()
    await dieDuringReason(log, trace)

    const judge = judgeOf()
    const next = await startProcess(log, twoStepScorer(judge, 'Rate the final answer'))
    await next.score(trace)
    expect(judge.calls.length).toBe(2)
    expect(await next.count('tracescore_judge_answers_reused_total')).toBe(0)
  })

  it('rescore asks every step again, and counts nothing as repeated', async () => {
    const log = createMemoryLedgerLog(1)
    const trace = oneTrace()
    await dieDuringReason(log, trace)

    const judge = judgeOf()
    const rescoring = await startProcess(log, twoStepScorer(judge), { rescore: true })
    await rescoring.score(trace)
    expect(judge.calls.length).toBe(2)
    expect(await rescoring.count('tracescore_judge_requests_repeated_total')).toBe(0)
  })

  it('a request still waiting for a judge slot is not noted as under way; a retried step is one request', async () => {
    const log = createMemoryLedgerLog(1)
    const trace = oneTrace()
    const steps = () =>
      log.records(0).map((r) => JSON.parse(String(r.value)) as { step: string; answer?: unknown })
    // The process dies while its request waits for a slot: it was never sent.
    const waiting: JudgeLimiter = { schedule: () => new Promise(() => {}) }
    const stuck = await startProcess(log, twoStepScorer(judgeOf()), { limiter: waiting })
    void stuck.score(trace)
    await new Promise((r) => setTimeout(r, 50))
    expect(steps()).toEqual([])

    // Not JSON, then a score: two model calls of one step, noted once.
    let first = true
    const judge = scriptedJudge([
      (call) => {
        if (JSON.stringify(call.prompt).includes('Explain the score')) return 'a reason'
        if (first) {
          first = false
          return 'no JSON here'
        }
        return '{"score": 0.25}'
      },
    ])
    const next = await startProcess(log, twoStepScorer(judge))
    const { scores } = await next.score(trace)
    expect(judge.calls.length).toBe(3)
    expect(scores.records[0]!.score).toBe(0.25)
    expect(steps().map((v) => [v.step, v.answer !== undefined])).toEqual([
      ['generateScore', true],
      ['generateReason', true],
    ])
    expect(await next.count('tracescore_judge_requests_repeated_total')).toBe(0)
  })

  it('a recorded decision drops its run’s kept steps, at once and when a process loads the partition', async () => {
    const log = createMemoryLedgerLog(1)
    const open = async () => {
      const ledger = createScoreLedger({ log, retentionMs: 60_000, logger: silentLogger() })
      await log.start(ledger.onRecords)
      ledger.assign([0])
      await ledger.loaded([0])
      return ledger
    }
    const answer = { output: { score: 0.5 }, usage: {}, attemptCount: 1, modelCallCount: 1 }
    const ledger = await open()
    await ledger.keepStep([0], 'decided', 'generateScore', 'h1', answer)
    await ledger.keepStep([0], 'open', 'generateScore', 'h2', answer)
    expect(ledger.keptStep([0], 'decided', 'generateScore')).toEqual(expect.objectContaining({ hash: 'h1' }))
    const decision = { traceId: 't', spanId: 's', scorer: 'judged', outcome: 'scored' as const }
    await ledger.record([0], [{ key: 'decided', decision }])
    expect(ledger.keptStep([0], 'decided', 'generateScore')).toBeUndefined()

    const reloaded = await open()
    await log.settled()
    expect(reloaded.keptStep([0], 'decided', 'generateScore')).toBeUndefined()
    expect(reloaded.keptStep([0], 'open', 'generateScore')).toEqual({
      atMs: expect.any(Number),
      hash: 'h2',
      answer,
    })
  })
})

describe('batchedWrites (the ledger group commit)', () => {
  /** A log write that holds each request until released, recording what each carried. */
  function heldLog() {
    const sent: string[][] = []
    const release: (() => void)[] = []
    const write = (records: readonly { key: string; value: string }[]) => {
      sent.push(records.map((r) => `${r.key}=${r.value}`))
      return new Promise<void>((resolve) => release.push(resolve))
    }
    return { sent, release, write }
  }
  const rec = (key: string) => ({ partition: 0, key, value: key })

  it('sends at once when idle; what is asked meanwhile goes in one request when it is acknowledged', async () => {
    const log = heldLog()
    const batches = batchedWrites(log.write)
    const a = batches.write([rec('a')])
    const b = batches.write([rec('b')])
    const c = batches.write([rec('c')])
    expect(log.sent).toEqual([['a=a']])
    log.release.shift()!()
    await a
    await new Promise((r) => setTimeout(r, 0))
    expect(log.sent).toEqual([['a=a'], ['b=b', 'c=c']])
    log.release.shift()!()
    await Promise.all([b, c])
  })

  it('attached records ride with the next write, replaced by a later record of their key, or go alone after the linger', async () => {
    const log = heldLog()
    const batches = batchedWrites(log.write, 10)
    batches.attach([rec('note-1'), rec('x')])
    const w = batches.write([{ partition: 0, key: 'x', value: 'answer' }])
    expect(log.sent).toEqual([['note-1=note-1', 'x=answer']])
    log.release.shift()!()
    await w
    batches.attach([rec('note-2')])
    expect(log.sent.length).toBe(1)
    await new Promise((r) => setTimeout(r, 30))
    expect(log.sent).toEqual([['note-1=note-1', 'x=answer'], ['note-2=note-2']])
  })
})
