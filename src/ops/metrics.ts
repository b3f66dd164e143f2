import { Counter, Gauge, Histogram, Registry } from 'prom-client'

/**
 * Every metric tracescore exposes on `/metrics`. Names follow Prometheus conventions
 * (`tracescore_` prefix, `_total` counters, base units); README "Metrics" explains each.
 */
export function createMetrics() {
  const registry = new Registry()
  const registers = [registry]
  const counter = <L extends string>(name: string, help: string, labelNames: L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers })
  const gauge = <L extends string>(name: string, help: string, labelNames: L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers })
  const histogram = <L extends string>(name: string, help: string, labelNames: L[], buckets?: number[]) =>
    new Histogram<L>({ name, help, labelNames, registers, ...(buckets ? { buckets } : {}) })
  return {
    registry,
    records: counter('tracescore_records_total', 'Kafka records consumed'),
    spans: counter('tracescore_spans_total', 'Spans read (those passed by at the sampling door included)'),
    passedBySpans: counter(
      'tracescore_passed_by_spans_total',
      'Spans of traces no scorer samples, passed by at the sampling door: not decoded, assembled nor scored',
    ),
    passedByTraces: counter(
      'tracescore_passed_by_traces_total',
      'Traces no scorer samples (counted by their root spans), passed by at the sampling door',
    ),
    traces: counter('tracescore_traces_total', 'Traces assembled', ['complete']),
    runs: counter('tracescore_agent_runs_total', 'Agent runs found in traces', ['agent', 'convention']),
    decisions: counter(
      'tracescore_decisions_total',
      'Decisions per (run, scorer): scored, sampled-out, filtered, not-scorable, skipped-budget, failed',
      ['scorer', 'outcome'],
    ),
    notScorable: counter(
      'tracescore_not_scorable_total',
      'Not-scorable decisions by cause: the first run part the trace did not record, or "scorer" when the scorer said so',
      ['scorer', 'cause'],
    ),
    tracesWithoutRuns: counter(
      'tracescore_traces_without_runs_total',
      'Traces with GenAI activity that gave no agent run, by reason and by convention of their GenAI spans',
      ['reason', 'convention'],
    ),
    unrecordedParts: counter(
      'tracescore_run_parts_unrecorded_total',
      'Agent runs whose trace did not record a part (input, system, finalText, toolArguments, toolResults)',
      ['part', 'convention'],
    ),
    scoreValues: histogram(
      'tracescore_score_value',
      'Score values per scorer and agent (the quality-monitoring signal)',
      ['scorer', 'agent'],
      [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1],
    ),
    judgeTokens: counter('tracescore_judge_tokens_total', 'Judge tokens used', ['scorer', 'model']),
    judgeCalls: counter('tracescore_judge_calls_total', 'Judge model calls', ['scorer', 'model']),
    scoringSeconds: histogram(
      'tracescore_scoring_duration_seconds',
      'Time to score one run with one scorer (judge latency included)',
      ['scorer'],
    ),
    deadLetters: counter('tracescore_dead_letters_total', 'Records sent to the dead-letter topic'),
    lateSpans: counter(
      'tracescore_late_spans_total',
      'Spans that arrived after their run was scored, by what released their trace (settled, age, cap, flush)',
      ['released_by'],
    ),
    bufferedSpans: gauge('tracescore_buffered_spans', 'Spans waiting in the trace assembler'),
    heldPartitions: gauge(
      'tracescore_held_partitions',
      'Partitions not fetched because they were read too far ahead of the slowest one (watermark alignment)',
    ),
    consumerLag: gauge(
      'tracescore_consumer_lag',
      'Records between the committed offset and the high watermark',
      ['partition'],
    ),
    ledgerLookups: counter(
      'tracescore_ledger_lookups_total',
      'Score-ledger lookups per (run, scorer): hit (recorded score delivered again, not scored) or miss',
      ['scorer', 'result'],
    ),
    ledgerWrites: counter('tracescore_ledger_writes_total', 'Decisions written to the score ledger', [
      'scorer',
    ]),
    judgeAnswersReused: counter(
      'tracescore_judge_answers_reused_total',
      'Judge steps answered from the score ledger (an answer kept before a restart, same prompt): no request',
      ['scorer'],
    ),
    judgeRequestsRepeated: counter(
      'tracescore_judge_requests_repeated_total',
      'Judge requests made again for a step whose earlier request (same prompt) was under way when a process died',
      ['scorer'],
    ),
    sinkDeliveries: counter(
      'tracescore_sink_deliveries_total',
      'Score records delivered or failed per sink',
      ['sink', 'result'],
    ),
  }
}

/** The metric set of one pipeline. */
export type Metrics = ReturnType<typeof createMetrics>
