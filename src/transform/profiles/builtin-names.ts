/**
 * The names a profile's `extends` may give, in the docs' order: the built-in readers written as
 * code (those kept as profiles, `builtin/`, are copied rather than extended).
 */
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
  'llama-index',
  'openai-agents',
  'smolagents',
  'crewai',
] as const

/** A built-in reader's name. */
export type BuiltinReaderName = (typeof BUILTIN_READER_NAMES)[number]
