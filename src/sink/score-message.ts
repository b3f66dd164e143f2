import type { ScoreRecord } from '../model/index.ts'
import { scoreSpanId } from './score-span-id.ts'
import { tracescoreVersion } from './tracescore-version.ts'

/** The `schema` value of score messages; it changes only with an incompatible change. */
export const scoreMessageSchema = 'tracescore.score.v1'

/**
 * One score as a JSON record on the Kafka score topic (key: the trace id). Documented for
 * consumers in docs/score-record.md.
 *
 * ```
 * {
 *   "schema": "tracescore.score.v1",      // always this value for this shape
 *   "id": "9f2c…(16 hex)",                // score span id: the same for a replay, use it to dedupe
 *   "traceId": "(32 hex)", "spanId": "(16 hex, the agent-run span)", "runId": "…",
 *   "agentName"?: "…", "agentId"?: "…",
 *   "scorerId": "…", "scorerName": "…", "scorerKind": "llm" | "code",
 *   "score"?: 0.82, "label"?: "pass", "reason"?: "…",
 *   "error"?: { "type": "…", "message": "…" },      // present when scoring failed
 *   "judge"?: { "model"?, "inputTokens"?, "outputTokens"?, "totalTokens"?, "calls" },
 *   "samplingRate"?: 0.25,
 *   "incomplete"?: true,                  // the run was rebuilt from an incomplete trace
 *   "timestamp": "2025-11-30T10:53:20.123Z", "timestampMs": 1764500000123,
 *   "tracescoreVersion": "0.1.0"
 * }
 * ```
 * Optional fields are omitted (never null) when the record has no value for them. The fields it
 * shares with `ScoreRecord` mean what they mean there (trace and span ids lower-cased).
 */
export interface ScoreMessage extends Omit<ScoreRecord, 'incomplete'> {
  schema: typeof scoreMessageSchema
  id: string
  /** Present (true) when the run was rebuilt from a trace released incomplete; spans may be missing. */
  incomplete?: true
  timestamp: string
  tracescoreVersion: string
}

/** The score-topic message of a record. */
export function toScoreMessage(record: ScoreRecord): ScoreMessage {
  const traceId = record.traceId.toLowerCase()
  const spanId = record.spanId.toLowerCase()
  const message: ScoreMessage = {
    schema: scoreMessageSchema,
    id: scoreSpanId(traceId, spanId, record.scorerId),
    traceId,
    spanId,
    runId: record.runId,
    scorerId: record.scorerId,
    scorerName: record.scorerName,
    scorerKind: record.scorerKind,
    timestamp: new Date(record.timestampMs).toISOString(),
    timestampMs: record.timestampMs,
    tracescoreVersion,
  }
  if (record.agentName !== undefined) message.agentName = record.agentName
  if (record.agentId !== undefined) message.agentId = record.agentId
  if (record.score !== undefined && Number.isFinite(record.score)) message.score = record.score
  if (record.label !== undefined) message.label = record.label
  if (record.reason !== undefined) message.reason = record.reason
  if (record.error !== undefined) message.error = { type: record.error.type, message: record.error.message }
  if (record.judge !== undefined) message.judge = record.judge
  if (record.samplingRate !== undefined) message.samplingRate = record.samplingRate
  if (record.incomplete) message.incomplete = true
  return message
}
