/** The transform stage: the agent runs of one trace's spans (`extractAgentRuns`), and the span roles it recognises. */
export { findAgentSpans, isAgentRunSpan, isGenAiSpan } from './agent-spans.ts'
export { detectConvention, spanRole } from './detect-convention.ts'
export { extractAgentRuns } from './extract-agent-runs.ts'
