import type { Convention, Span } from '../model/index.ts'
import { aiSdkReader } from './conventions/ai-sdk.ts'
import { autogenOpenInferenceReader, autogenReader } from './conventions/autogen.ts'
import type { ConventionReader, SpanRole } from './conventions/convention-reader.ts'
import { crewAiReader } from './conventions/crewai.ts'
import { frameworkRules } from './conventions/framework-rules.ts'
import { genAiSpanReader } from './conventions/genai.ts'
import { genericReader } from './conventions/generic.ts'
import { genkitReader } from './conventions/genkit.ts'
import { googleAdkReader } from './conventions/google-adk.ts'
import { googleAdkOpenInferenceReader } from './conventions/google-adk-openinference.ts'
import { langChainReader } from './conventions/langchain.ts'
import { llamaIndexReader } from './conventions/llama-index.ts'
import { logfireReader } from './conventions/logfire.ts'
import { mastraReader } from './conventions/mastra.ts'
import { openAiAgentsReader } from './conventions/openai-agents.ts'
import { openInferenceReader } from './conventions/openinference.ts'
import { openLlmetryLangChainReader } from './conventions/openllmetry-langchain.ts'
import { smolagentsReader } from './conventions/smolagents.ts'
import { strandsReader } from './conventions/strands.ts'
import { traceloopReader } from './conventions/traceloop.ts'
import { langChain4jReader, springAiReader } from './profiles/builtin/index.ts'

/**
 * Readers in the order they are tried: Mastra marks every span it exports, and also writes
 * GenAI keys; AI SDK 7 and OpenInference processors add their keys to spans of other
 * conventions, so the most specific convention wins.
 */
const READERS: readonly ConventionReader[] = [
  mastraReader,
  strandsReader,
  googleAdkReader,
  googleAdkOpenInferenceReader,
  autogenReader,
  openLlmetryLangChainReader,
  traceloopReader,
  logfireReader,
  langChain4jReader,
  springAiReader,
  genAiSpanReader,
  aiSdkReader,
  openAiAgentsReader,
  langChainReader,
  smolagentsReader,
  crewAiReader,
  llamaIndexReader,
  autogenOpenInferenceReader,
  openInferenceReader,
  genkitReader,
  genericReader,
]

/**
 * The readers written for one framework each, chosen by the framework's instrumentation scope or
 * its own span names: what {@link withConventionReadersOnly} switches off to measure how much of
 * a producer is read by convention alone (issue 27's generalisation table).
 */
const FRAMEWORK_READERS: ReadonlySet<ConventionReader> = new Set([
  strandsReader,
  googleAdkReader,
  googleAdkOpenInferenceReader,
  autogenReader,
  openLlmetryLangChainReader,
  langChain4jReader,
  springAiReader,
  openAiAgentsReader,
  langChainReader,
  smolagentsReader,
  crewAiReader,
  llamaIndexReader,
  autogenOpenInferenceReader,
])

/** The readers tried; every one but while {@link withConventionReadersOnly} runs. */
let active: readonly ConventionReader[] = READERS

/**
 * Runs `work` with every framework-specific reader switched off, so spans are read by the
 * conventions alone (GenAI, OpenInference, OpenLLMetry, AI SDK, Logfire, Mastra, Genkit): the
 * measure of reading producers nobody named. For tests and benchmarks; not re-entrant.
 */
export function withConventionReadersOnly<T>(work: () => T): T {
  const before = active
  active = READERS.filter((reader) => !FRAMEWORK_READERS.has(reader))
  frameworkRules.on = false
  try {
    return work()
  } finally {
    active = before
    frameworkRules.on = true
  }
}

/** A span's reader and role, read once while one trace is extracted. */
interface SpanInfo {
  reader: ConventionReader | undefined
  /** Undefined until asked. */
  role: SpanRole | undefined
}

/** Each span's reader and role while {@link withSpanCache} runs; undefined otherwise. */
let cache: Map<Span, SpanInfo> | undefined

/** Traces of more spans are read without the cache (see {@link withSpanCache}). */
const SPAN_CACHE_UP_TO = 1_000

/**
 * Runs `work` on a trace of `spanCount` spans with each span's reader and role remembered (a `Map`
 * dropped when `work` returns): transform asks them of every span many times. Outside, they are
 * read each time (a few attribute reads): a `WeakMap` kept across traces cost more to fill than
 * the reads it saved. A trace of more than {@link SPAN_CACHE_UP_TO} spans is read without it: on
 * 50,000 spans the Map made the hostile benchmark's largest sizes 10-20% slower while the smaller
 * ones got faster, so a doubling cost up to 2.8x (issue 11's bound is 2.5x). A call inside
 * `work` shares the outer cache.
 */
export function withSpanCache<T>(spanCount: number, work: () => T): T {
  if (cache !== undefined || spanCount > SPAN_CACHE_UP_TO) return work()
  cache = new Map()
  try {
    return work()
  } finally {
    cache = undefined
  }
}

/** The reader of the configured producer profiles (`profiles/`) that owns a span, tried first. */
let profileReaderFor: ((span: Span) => ConventionReader | undefined) | undefined

/** Sets how producer profiles claim spans (`useProfiles`); undefined for no profiles. */
export function setProfileReaders(find: ((span: Span) => ConventionReader | undefined) | undefined): void {
  profileReaderFor = find
}

function findReader(span: Span): ConventionReader | undefined {
  const own = profileReaderFor?.(span)
  if (own) return own
  for (const reader of active) if (reader.matches(span)) return reader
  return undefined
}

function infoOf(span: Span, spans: Map<Span, SpanInfo>): SpanInfo {
  let info = spans.get(span)
  if (info === undefined) {
    info = { reader: findReader(span), role: undefined }
    spans.set(span, info)
  }
  return info
}

/** The reader for a span's convention, or undefined for a span no known convention wrote. */
export function readerFor(span: Span): ConventionReader | undefined {
  return cache === undefined ? findReader(span) : infoOf(span, cache).reader
}

/** The instrumentation convention that wrote a span, or undefined when none is recognised. */
export function detectConvention(span: Span): Convention | undefined {
  return readerFor(span)?.convention
}

/** What a span is to an agent run (`other` for spans of unknown conventions). */
export function spanRole(span: Span): SpanRole {
  if (cache === undefined) return findReader(span)?.role(span) ?? 'other'
  const info = infoOf(span, cache)
  if (info.role === undefined) info.role = info.reader?.role(span) ?? 'other'
  return info.role
}
