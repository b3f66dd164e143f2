import { unrecordedParts } from '../model/index.ts'
import type { TraceScores } from '../score-trace.ts'
import type { Logger } from './logger.ts'

const NO_RUN_HINT: Record<string, string> = {
  'no-agent-span': 'model or tool spans, but no span that heads an agent run',
  'no-confirmed-run': 'agent spans, none of them confirmed as a run (wrappers only?)',
  'unknown-convention': 'GenAI-looking spans of a convention no reader recognises',
}

/**
 * Logs each cause of a gap once per process (the counters on `/metrics` count every occurrence):
 * a GenAI trace that gave no run, by reason and convention, and runs recorded without some parts
 * (content capture off), by convention and the parts missing. The causes are few (reasons ×
 * conventions × part sets), so the set of causes seen stays small.
 */
export function createGapLog(logger: Logger): (scores: TraceScores, traceId: string) => void {
  const seen = new Set<string>()
  const once = (key: string, log: () => void) => {
    if (seen.has(key)) return
    seen.add(key)
    log()
  }
  return (scores, traceId) => {
    const { noRun } = scores
    if (noRun) {
      once(`no-run ${noRun.reason} ${noRun.conventions.join(',')}`, () =>
        logger.warn(
          { traceId, reason: noRun.reason, conventions: noRun.conventions },
          `a trace with GenAI activity gave no agent run: ${NO_RUN_HINT[noRun.reason]}. ` +
            'Counted in tracescore_traces_without_runs_total; `tracescore inspect FILE` shows what was understood of such a trace. Logged once per cause',
        ),
      )
    }
    for (const run of scores.runs) {
      // Parts held only flattened into one text are said so in the run's notes, not logged as absent.
      const parts = unrecordedParts(run).filter((part) => !run.inseparable?.includes(part))
      if (parts.length === 0) continue
      once(`parts ${run.convention} ${parts.join(',')}`, () =>
        logger.warn(
          { traceId, spanId: run.spanId, convention: run.convention, unrecorded: parts },
          `agent runs of convention ${run.convention} are recorded without their ${parts.join(', ')} ` +
            '(content capture off?): scorers that need them give not-scorable. Counted in tracescore_run_parts_unrecorded_total. Logged once per cause',
        ),
      )
    }
  }
}
