/**
 * The LLM judge of the score-ledger fault tests: a `createScorer` judge whose prompt names the
 * run, answered by the scripted judge in the test process with a new random score each time (a
 * run judged twice would change its score), which counts its requests per (run, scorer); and the
 * check that every repeated judge request is explained by a fault.
 */
import { type FaultJudge, startFaultJudge } from './fault-judge.ts'

/** Config-module code defining `judged` (the judge's URL from `FAULT_JUDGE_URL`). */
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
  createPrompt: ({ run }) => 'Rate the answer of run ' + run.runId + ' (scorer judged). Answer with a JSON object {"score": number}.',
})`

/** The (run, scorer) a judge prompt is about: `traceId-agentSpanId/judged`. */
function judgeKeyOf(prompt: string): string | undefined {
  const run = /run ([0-9a-f]{32}-[0-9a-f]{16}) \(scorer judged\)/.exec(prompt)?.[1]
  return run === undefined ? undefined : `${run}/judged`
}

/** Starts the judge: 10 ms per answer, a random score each time, requests counted in `byKey`. */
export function startCountingJudge(): Promise<FaultJudge> {
  return startFaultJudge({
    latencyMs: 10,
    policy: () => ({ text: `{"score": ${Math.random().toFixed(6)}}` }),
    keyOf: judgeKeyOf,
  })
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
