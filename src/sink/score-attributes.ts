import type { Attributes } from '@opentelemetry/api'
import type { ScoreRecord } from '../model/index.ts'
import { tracescoreVersion } from './tracescore-version.ts'

/**
 * Pass/fail thresholds: one for every scorer, or per scorer id. A score at or above its threshold
 * is labelled `pass`, below it `fail`, when the scorer gave no label of its own.
 */
export type PassThreshold = number | Record<string, number>

/** The label a score carries: the scorer's own, else pass/fail from a configured threshold. */
export function scoreLabel(record: ScoreRecord, passThreshold?: PassThreshold): string | undefined {
  if (record.label !== undefined && record.label !== '') return record.label
  if (record.score === undefined || passThreshold === undefined) return undefined
  const threshold = typeof passThreshold === 'number' ? passThreshold : passThreshold[record.scorerId]
  if (threshold === undefined) return undefined
  return record.score >= threshold ? 'pass' : 'fail'
}

/**
 * The GenAI evaluation attributes of a score (semconv §`gen_ai.evaluation.result`): name, score
 * value, label, explanation and, for a failed scoring, `error.type`. These go on the score span
 * and on its `gen_ai.evaluation.result` event.
 */
export function evaluationAttributes(record: ScoreRecord, passThreshold?: PassThreshold): Attributes {
  const attributes: Attributes = { 'gen_ai.evaluation.name': record.scorerName || record.scorerId }
  if (record.score !== undefined && Number.isFinite(record.score)) {
    attributes['gen_ai.evaluation.score.value'] = record.score
  }
  const label = scoreLabel(record, passThreshold)
  if (label !== undefined) attributes['gen_ai.evaluation.score.label'] = label
  const explanation = record.reason ?? record.error?.message
  if (explanation !== undefined && explanation !== '') {
    attributes['gen_ai.evaluation.explanation'] = explanation
  }
  if (record.error) attributes['error.type'] = record.error.type || 'Error'
  return attributes
}

/**
 * All attributes of a score span: the evaluation attributes, `tracescore.*` provenance keys and
 * `openinference.span.kind=EVALUATOR` (the OpenInference kind for post-hoc evaluation spans, so
 * Phoenix shows it as an evaluator).
 *
 * `gen_ai.operation.name` is deliberately not set: the GenAI conventions define no evaluation
 * operation, and backends (and tracescore's own transform stage) classify spans by that key, so
 * a made-up value could make a score span look like a model or agent call.
 */
export function scoreSpanAttributes(record: ScoreRecord, passThreshold?: PassThreshold): Attributes {
  const attributes: Attributes = {
    ...evaluationAttributes(record, passThreshold),
    'openinference.span.kind': 'EVALUATOR',
    'tracescore.scorer.id': record.scorerId,
    'tracescore.scorer.name': record.scorerName,
    'tracescore.scorer.kind': record.scorerKind,
    'tracescore.run.id': record.runId,
    'tracescore.version': tracescoreVersion,
  }
  setDefined(attributes, 'tracescore.agent.name', record.agentName)
  setDefined(attributes, 'tracescore.agent.id', record.agentId)
  setDefined(attributes, 'tracescore.sampling.rate', record.samplingRate)
  if (record.incomplete) attributes['tracescore.run.incomplete'] = true
  const judge = record.judge
  if (judge) {
    setDefined(attributes, 'tracescore.judge.model', judge.model)
    setDefined(attributes, 'tracescore.judge.calls', judge.calls)
    setDefined(attributes, 'tracescore.judge.input_tokens', judge.inputTokens)
    setDefined(attributes, 'tracescore.judge.output_tokens', judge.outputTokens)
    setDefined(attributes, 'tracescore.judge.total_tokens', judge.totalTokens)
  }
  return attributes
}

function setDefined(attributes: Attributes, key: string, value: string | number | undefined): void {
  if (value !== undefined && value !== '') attributes[key] = value
}
