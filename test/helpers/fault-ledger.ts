/**
 * The LLM judge of the score-ledger fault tests: a two-step `createScorer` judge whose prompts
 * name the run, answered by the scripted judge in the test process with a new random score or
 * reason each time (a run judged twice would change its score), which counts its requests per
 * (run, scorer, step); the check that every repeated judge request is explained by a fault; and
 * what the ledger kept of the answers, to count the requests in flight at a kill.
 */
import type { Kafka } from 'kafkajs'
import { type FaultJudge, startFaultJudge } from './fault-judge.ts'
import { endOffsets, readTopic } from './kafka.ts'

/**
 * Config-module code defining `judged` (the judge's URL from `FAULT_JUDGE_URL`): two judge steps,
 * a score then a reason for it, as the user ran it (an answer lost between them was asked
 * for again before answers were kept).
 */
export const judgedScorerPreamble = `import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { createScorer } from 'tracescore'
const model = createOpenAICompatible({ name: 'scripted', baseURL: process.env.FAULT_JUDGE_URL })('fault-judge')
const judged = createScorer({
  id: 'judged',
  description: 'an LLM judge that answers differently every time',
  type: 'agent',
  judge: { model, instructions: 'Rate the agent answer from 0 to 1.' },
}).generateScore({
  description: 'Rate the answer',
  createPrompt: ({ run }) => 'Rate the answer of run ' + run.runId + ' (scorer judged, step score). Answer with a JSON object {"score": number}.',
}).generateReason({
  description: 'Explain the score',
  createPrompt: ({ run, score }) => 'Explain the score ' + score + ' of run ' + run.runId + ' (scorer judged, step reason).',
})`

/** Judge requests per run of `judged` (its two steps). */
export const JUDGE_STEPS = 2

/** The (run, scorer, step) a judge prompt is about: `traceId-agentSpanId/judged/score|reason`. */
function judgeKeyOf(prompt: string): string | undefined {
  const match = /run ([0-9a-f]{32}-[0-9a-f]{16}) \(scorer judged, step (score|reason)\)/.exec(prompt)
  return match === null ? undefined : `${match[1]}/judged/${match[2]}`
}

/**
 * Starts the judge: `latencyMs` per answer (default 10; a function: drawn per request), a random
 * score or reason each time, requests counted per (run, scorer, step) in `byKey`.
 */
export function startCountingJudge(latencyMs: number | (() => number) = 10): Promise<FaultJudge> {
  return startFaultJudge({
    latencyMs,
    policy: ({ prompt }) => ({
      text: prompt.includes('step reason') ? `reason ${Math.random()}` : `{"score": ${Math.random()}}`,
    }),
    keyOf: judgeKeyOf,
  })
}

/** A judge answer as the ledger keeps it (an object answer as JSON, a text as it is). */
function answerText(output: unknown): string {
  return typeof output === 'string' ? output : JSON.stringify(output)
}

/** Every judge answer kept in the ledger topic (`answer:` records), read from its beginning. */
export async function keptAnswers(kafka: Kafka, ledgerTopic: string): Promise<Set<string>> {
  const ends = await endOffsets(kafka, ledgerTopic)
  const count = [...ends.values()].reduce((n, end) => n + Number(end), 0)
  const records = await readTopic(kafka, ledgerTopic, count, 120_000)
  const kept = new Set<string>()
  for (const r of records) {
    if (!r.key?.startsWith('answer:') || r.value === null) continue
    const value = JSON.parse(r.value.toString('utf8')) as { answer?: { output: unknown } }
    if (value.answer !== undefined) kept.add(answerText(value.answer.output))
  }
  return kept
}

/**
 * Judge steps noted in the ledger as asked more than once before an answer was kept: a later
 * process found a step noted as asked with no answer and asked it again, which is what the service
 * counts as a repeated request (`tracescore_judge_requests_repeated_total`). One noted by a killed
 * process whose request never reached the judge is among them, though the judge saw it once.
 */
export async function stepsNotedAgain(kafka: Kafka, ledgerTopic: string): Promise<number> {
  const ends = await endOffsets(kafka, ledgerTopic)
  const count = [...ends.values()].reduce((n, end) => n + Number(end), 0)
  const records = await readTopic(kafka, ledgerTopic, count, 120_000)
  const notes = new Map<string, number>()
  for (const r of records) {
    if (!r.key?.startsWith('answer:') || r.value === null) continue
    const value = JSON.parse(r.value.toString('utf8')) as { answer?: unknown }
    if (value.answer === undefined) notes.set(r.key, (notes.get(r.key) ?? 0) + 1)
  }
  let again = 0
  for (const n of notes.values()) again += Math.max(0, n - 1)
  return again
}

/** Whether the judge's reply to a request was kept in the ledger. */
function wasKept(kept: ReadonlySet<string>, reply: string | undefined): boolean {
  if (reply === undefined) return false
  return kept.has(reply.startsWith('{') ? answerText(JSON.parse(reply)) : reply)
}

/**
 * Judge requests in flight at each kill, as the service sees them: sent by the process killed
 * (received by the judge after the kill before, up to the kill) and whose answer never reached
 * the ledger (the request under way, or its answer on the way back and being kept).
 */
export function unkeptAtKills(
  judge: Pick<FaultJudge, 'log'>,
  kept: ReadonlySet<string>,
  killedAt: readonly number[],
): number[] {
  return killedAt.map((at, k) => {
    const from = k === 0 ? 0 : killedAt[k - 1]!
    return judge.log.filter(
      (r) => r.at > from && r.at <= at && judgeKeyOf(r.prompt) !== undefined && !wasKept(kept, r.reply),
    ).length
  })
}

/**
 * Judge requests whose answer was never kept although no kill hit within `windowMs` after they
 * were received: the ledger should have kept them (a request cut by a kill is under way then).
 */
export function unkeptAwayFromKills(
  judge: Pick<FaultJudge, 'log'>,
  kept: ReadonlySet<string>,
  killedAt: readonly number[],
  windowMs: number,
): number {
  return judge.log.filter(
    (r) =>
      judgeKeyOf(r.prompt) !== undefined &&
      !wasKept(kept, r.reply) &&
      !killedAt.some((at) => r.at <= at && r.at >= at - windowMs),
  ).length
}

/** {@link unkeptAwayFromKills}'s requests, one line each (when received, key), for a failure's message. */
export function unkeptAwayFromKillsDetail(
  judge: Pick<FaultJudge, 'log'>,
  kept: ReadonlySet<string>,
  killedAt: readonly number[],
  windowMs: number,
  startedAt: number,
): string[] {
  return judge.log
    .filter(
      (r) =>
        judgeKeyOf(r.prompt) !== undefined &&
        !wasKept(kept, r.reply) &&
        !killedAt.some((at) => r.at <= at && r.at >= at - windowMs),
    )
    .map(
      (r) =>
        `received ${r.at - startedAt} ms in, ${judgeKeyOf(r.prompt)}, reply ${r.reply === undefined ? 'none' : 'sent'}`,
    )
}

/** (run, scorer, step) keys asked again after an answer to them was kept: the ledger should have given it. */
export function askedAgainAfterKept(judge: Pick<FaultJudge, 'log'>, kept: ReadonlySet<string>): string[] {
  const answered = new Set<string>()
  const out: string[] = []
  for (const r of judge.log) {
    const key = judgeKeyOf(r.prompt)
    if (key === undefined) continue
    if (answered.has(key)) out.push(key)
    if (wasKept(kept, r.reply)) answered.add(key)
  }
  return out
}

/** A stretch of time in which a fault could cut a scoring short (a kill; a rebalance under way). */
export interface FaultWindow {
  from: number
  to: number
}

/**
 * Repeated judge requests of a (run, scorer) that no fault explains: each request after the first
 * must come after a fault window began, and the request before it at most `inFlightMs` before
 * that window ended (it was under way when the fault hit, so its score was not recorded yet).
 */
export function unexplainedRepeats(
  byKey: ReadonlyMap<string, readonly number[]>,
  faults: readonly FaultWindow[],
  inFlightMs: number,
): string[] {
  const out: string[] = []
  for (const [key, times] of byKey)
    for (let i = 1; i < times.length; i++) {
      const [before, after] = [times[i - 1]!, times[i]!]
      const explained = faults.some((f) => after >= f.from && before <= f.to && before >= f.from - inFlightMs)
      if (!explained) out.push(key)
    }
  return out
}

/** Judge requests beyond the first, over all (run, scorer) pairs. */
export function repeatedRequests(byKey: ReadonlyMap<string, readonly number[]>): number {
  let n = 0
  for (const times of byKey.values()) n += times.length - 1
  return n
}
