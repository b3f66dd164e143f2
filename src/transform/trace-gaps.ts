import type { AgentRun, Convention, Span } from '../model/index.ts'
import { findRuns } from './agent-spans.ts'
import type { SpanRole } from './conventions/convention-reader.ts'
import { withGenericReading } from './conventions/generic.ts'
import { detectConvention, spanRole, withSpanCache } from './detect-convention.ts'
import { plainAttributes } from './read-attribute.ts'
import { buildSpanTree } from './span-tree.ts'

/**
 * Why a trace that shows GenAI activity gave no agent run:
 * - `no-agent-span`: model or tool spans, but nothing that heads an agent run (a bare model call,
 *   or an agent convention tracescore does not read);
 * - `no-confirmed-run`: agent spans, all of them dropped (wrappers, candidates the trace did not
 *   confirm);
 * - `unknown-convention`: spans that look like GenAI telemetry (`gen_ai.*`, `llm.*`, …) that no
 *   reader recognises.
 */
export type NoRunReason = 'no-agent-span' | 'no-confirmed-run' | 'unknown-convention'

/** A span that shows GenAI activity, as `inspect` lists it. */
export interface GenAiSpan {
  spanId: string
  name: string
  role: SpanRole
  /** The reader's convention, or `unknown` for a span that only looks like GenAI telemetry. */
  convention: Convention | 'unknown'
}

/** What tracescore understood of one trace: its conventions, runs, and the GenAI spans no run used. */
export interface TraceReading {
  traceId: string
  spanCount: number
  /** Conventions of the GenAI spans, in order of first appearance. */
  conventions: (Convention | 'unknown')[]
  genAiSpans: GenAiSpan[]
  runs: AgentRun[]
  /** GenAI spans outside every run's agent span (and not a run's own span). */
  unused: GenAiSpan[]
  /** Set when the trace shows GenAI activity and gave no run. */
  noRun?: NoRunReason
}

/** Attribute prefixes of GenAI telemetry: a span carrying one that no reader recognises is `unknown`. */
const GENAI_PREFIXES = [
  'gen_ai.',
  'llm.',
  'ai.',
  'genkit:',
  'openinference.',
  'traceloop.',
  'lc.',
  'spring.ai.',
]

function looksGenAi(span: Span): boolean {
  for (const key in plainAttributes(span.attributes)) {
    for (const prefix of GENAI_PREFIXES) if (key.startsWith(prefix)) return true
  }
  return false
}

/** The spans of one trace that show GenAI activity: a recognised role, or GenAI-looking attributes. */
function genAiSpansOf(spans: readonly Span[]): GenAiSpan[] {
  const found: GenAiSpan[] = []
  for (const span of spans) {
    const role = spanRole(span)
    const convention = detectConvention(span)
    // A known convention's other spans (chains, workflow plumbing) are no GenAI activity of their own.
    if (role !== 'other' || (convention === undefined && looksGenAi(span))) {
      found.push({ spanId: span.spanId, name: span.name, role, convention: convention ?? 'unknown' })
    }
  }
  return found
}

/** Why a trace with these GenAI spans gave no run. */
function noRunReason(genAi: readonly GenAiSpan[]): NoRunReason {
  if (genAi.some((span) => span.role === 'agent')) return 'no-confirmed-run'
  if (genAi.some((span) => span.role !== 'other')) return 'no-agent-span'
  return 'unknown-convention'
}

/**
 * The spans a run uses, or that hold one: everything on the way from a span up to the nearest
 * span heading a part of a run (a run's span or its continuation), and every ancestor of such a
 * head (wrappers the transform drops on purpose). Each walk stops after the trace's size, so
 * corrupt parent loops end.
 */
function usedSpans(spans: readonly Span[], heads: ReadonlySet<string>): Set<string> {
  const parentOf = new Map<string, string | undefined>()
  for (const span of spans) parentOf.set(span.spanId, span.parentSpanId)
  const used = new Set<string>()
  for (const span of spans) {
    const path: string[] = []
    let at: string | undefined = span.spanId
    for (let steps = 0; at !== undefined && steps <= spans.length; steps++) {
      path.push(at)
      if (heads.has(at)) {
        for (const id of path) used.add(id)
        break
      }
      at = parentOf.get(at)
    }
  }
  for (const head of heads) {
    let at = parentOf.get(head)
    for (let steps = 0; at !== undefined && steps <= spans.length; steps++) {
      used.add(at)
      at = parentOf.get(at)
    }
  }
  return used
}

/**
 * Reads one trace the way `inspect` shows it: the conventions its GenAI spans follow, the runs
 * found (`runs`, from `extractAgentRuns` on the same spans), and the GenAI spans no run used
 * (see {@link usedSpans}).
 */
export function readTrace(spans: readonly Span[], runs: AgentRun[]): TraceReading {
  return withGenericReading(() =>
    withSpanCache(spans.length, () => {
      const genAiSpans = genAiSpansOf(spans)
      const heads = new Set([
        ...runs.map((run) => run.spanId),
        ...findRuns(buildSpanTree(spans)).runOf.keys(),
      ])
      const used = usedSpans(spans, heads)
      const held = (spanId: string) => used.has(spanId)
      const conventions = [...new Set(genAiSpans.map((span) => span.convention))]
      const reading: TraceReading = {
        traceId: spans[0]?.traceId ?? '',
        spanCount: spans.length,
        conventions,
        genAiSpans,
        runs,
        unused: genAiSpans.filter((span) => !held(span.spanId)),
      }
      if (runs.length === 0 && genAiSpans.length > 0) reading.noRun = noRunReason(genAiSpans)
      return reading
    }),
  )
}

/** Why a trace that gave no run did not, or undefined when it shows no GenAI activity at all. */
export function whyNoRun(
  spans: readonly Span[],
): { reason: NoRunReason; conventions: (Convention | 'unknown')[] } | undefined {
  return withGenericReading(() =>
    withSpanCache(spans.length, () => {
      const genAi = genAiSpansOf(spans)
      if (genAi.length === 0) return undefined
      return { reason: noRunReason(genAi), conventions: [...new Set(genAi.map((span) => span.convention))] }
    }),
  )
}
