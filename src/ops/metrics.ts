import { Counter, Gauge, Histogram, Registry } from 'prom-client'

/**
 * Every metric tracescore exposes on `/metrics`. Names follow Prometheus conventions
 * (`tracescore_` prefix, `_total` counters, base units); README "Metrics" explains each.
 */
export function createMetrics() {
  const registry = new Registry()
  const opts = { registers: [registry] }
  return {
    registry,
    records: new Counter({ name: 'tracescore_records_total', help: 'Kafka records consumed', ...opts }),
    spans: new Counter({ name: 'tracescore_spans_total', help: 'Spans decoded', ...opts }),
    traces: new Counter({
      name: 'tracescore_traces_total',
      help: 'Traces assembled',
      labelNames: ['complete'],
      ...opts,
    }),
    runs: new Counter({
      name: 'tracescore_agent_runs_total',
      help: 'Agent runs found in traces',
      labelNames: ['agent', 'convention'],
      ...opts,
    }),
    decisions: new Counter({
      name: 'tracescore_decisions_total',
      help: 'Decisions per (run, scorer): scored, sampled-out, filtered, not-scorable, skipped-budget, failed',
      labelNames: ['scorer', 'outcome'],
      ...opts,
    }),
    scoreValues: new Histogram({
      name: 'tracescore_score_value',
      help: 'Score values per scorer and agent (the quality-monitoring signal)',
      labelNames: ['scorer', 'agent'],
      buckets: [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1],
      ...opts,
    }),
    judgeTokens: new Counter({
      name: 'tracescore_judge_tokens_total',
      help: 'Judge tokens used',
      labelNames: ['scorer', 'model'],
      ...opts,
    }),
    judgeCalls: new Counter({
      name: 'tracescore_judge_calls_total',
      help: 'Judge model calls',
      labelNames: ['scorer', 'model'],
      ...opts,
    }),
    scoringSeconds: new Histogram({
      name: 'tracescore_scoring_duration_seconds',
      help: 'Time to score one run with one scorer (judge latency included)',
      labelNames: ['scorer'],
      ...opts,
    }),
    deadLetters: new Counter({
      name: 'tracescore_dead_letters_total',
      help: 'Records sent to the dead-letter topic',
      ...opts,
    }),
    lateSpans: new Counter({
      name: 'tracescore_late_spans_total',
      help: 'Spans that arrived after their run was scored',
      ...opts,
    }),
    bufferedSpans: new Gauge({
      name: 'tracescore_buffered_spans',
      help: 'Spans waiting in the trace assembler',
      ...opts,
    }),
    consumerLag: new Gauge({
      name: 'tracescore_consumer_lag',
      help: 'Records between the committed offset and the high watermark',
      labelNames: ['partition'],
      ...opts,
    }),
    sinkDeliveries: new Counter({
      name: 'tracescore_sink_deliveries_total',
      help: 'Score records delivered or failed per sink',
      labelNames: ['sink', 'result'],
      ...opts,
    }),
  }
}

/** The metric set of one pipeline. */
export type Metrics = ReturnType<typeof createMetrics>
