export { findAgentSpans, isAgentRunSpan, isGenAiSpan } from './agent-spans.ts'
export type { SpanRole } from './conventions/convention-reader.ts'
export { detectConvention, spanRole } from './detect-convention.ts'
export { extractAgentRuns } from './extract-agent-runs.ts'
