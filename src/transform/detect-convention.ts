import type { Convention, Span } from '../model/index.ts'
import { aiSdkReader } from './conventions/ai-sdk.ts'
import type { ConventionReader, SpanRole } from './conventions/convention-reader.ts'
import { crewAiReader } from './conventions/crewai.ts'
import { genAiReader } from './conventions/genai.ts'
import { googleAdkReader } from './conventions/google-adk.ts'
import { langChainReader } from './conventions/langchain.ts'
import { mastraReader } from './conventions/mastra.ts'
import { openAiAgentsReader } from './conventions/openai-agents.ts'
import { openInferenceReader } from './conventions/openinference.ts'
import { smolagentsReader } from './conventions/smolagents.ts'
import { strandsReader } from './conventions/strands.ts'
import { traceloopReader } from './conventions/traceloop.ts'

/**
 * Readers in the order they are tried: Mastra marks every span it exports, and also writes
 * GenAI keys; AI SDK 7 and OpenInference processors add their keys to spans of other
 * conventions, so the most specific convention wins.
 */
const READERS: readonly ConventionReader[] = [
  mastraReader,
  strandsReader,
  googleAdkReader,
  traceloopReader,
  genAiReader,
  aiSdkReader,
  openAiAgentsReader,
  langChainReader,
  smolagentsReader,
  crewAiReader,
  openInferenceReader,
]

const readers = new WeakMap<Span, ConventionReader | null>()

/** The reader for a span's convention, or undefined for a span no known convention wrote. */
export function readerFor(span: Span): ConventionReader | undefined {
  let reader = readers.get(span)
  if (reader === undefined) {
    reader = READERS.find((candidate) => candidate.matches(span)) ?? null
    readers.set(span, reader)
  }
  return reader ?? undefined
}

/** The instrumentation convention that wrote a span, or undefined when none is recognised. */
export function detectConvention(span: Span): Convention | undefined {
  return readerFor(span)?.convention
}

/** What a span is to an agent run (`other` for spans of unknown conventions). */
export function spanRole(span: Span): SpanRole {
  return readerFor(span)?.role(span) ?? 'other'
}
