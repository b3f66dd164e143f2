/** The names a profile's `extends` may give, in the docs' order. */
export const BUILTIN_READER_NAMES = [
  'genai',
  'openinference',
  'traceloop',
  'logfire',
  'ai-sdk',
  'mastra',
  'genkit',
  'generic',
  'strands',
  'google-adk',
  'autogen',
  'langchain',
  'langchain4j',
  'llama-index',
  'openai-agents',
  'smolagents',
  'crewai',
] as const

/** A built-in reader's name. */
export type BuiltinReaderName = (typeof BUILTIN_READER_NAMES)[number]
