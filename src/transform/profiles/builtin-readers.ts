import { aiSdkReader } from '../conventions/ai-sdk.ts'
import { autogenReader } from '../conventions/autogen.ts'
import type { ConventionReader } from '../conventions/convention-reader.ts'
import { crewAiReader } from '../conventions/crewai.ts'
import { genAiReader } from '../conventions/genai.ts'
import { genericReader } from '../conventions/generic.ts'
import { genkitReader } from '../conventions/genkit.ts'
import { googleAdkReader } from '../conventions/google-adk.ts'
import { langChainReader } from '../conventions/langchain.ts'
import { llamaIndexReader } from '../conventions/llama-index.ts'
import { logfireReader } from '../conventions/logfire.ts'
import { mastraReader } from '../conventions/mastra.ts'
import { openAiAgentsReader } from '../conventions/openai-agents.ts'
import { openInferenceReader } from '../conventions/openinference.ts'
import { smolagentsReader } from '../conventions/smolagents.ts'
import { strandsReader } from '../conventions/strands.ts'
import { traceloopReader } from '../conventions/traceloop.ts'
import type { BuiltinReaderName } from './builtin-names.ts'

/**
 * The built-in reader a profile extends, by name.
 */
export function builtinReader(name: BuiltinReaderName): ConventionReader {
  const readers: Record<BuiltinReaderName, ConventionReader> = {
    genai: genAiReader,
    openinference: openInferenceReader,
    traceloop: traceloopReader,
    logfire: logfireReader,
    'ai-sdk': aiSdkReader,
    mastra: mastraReader,
    genkit: genkitReader,
    generic: genericReader,
    strands: strandsReader,
    'google-adk': googleAdkReader,
    autogen: autogenReader,
    langchain: langChainReader,
    'llama-index': llamaIndexReader,
    'openai-agents': openAiAgentsReader,
    smolagents: smolagentsReader,
    crewai: crewAiReader,
  }
  return readers[name]
}
