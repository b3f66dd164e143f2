/**
 * The tail-sampling policy of deploy/otelcol-agent-only-tier2.yaml, checked without a Collector:
 * its OTTL conditions, read from the file, must keep every recorded trace in which `tracescore
 * run` finds an agent run (every producer of test/fixtures/data), and no plain HTTP/DB trace. A
 * convention reader added without its detection key in the Collector config fails here; the e2e
 * test (test/e2e/collector-agent-only.test.ts) runs the same file in the real Collector.
 */
import { readFileSync } from 'node:fs'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { loadTrafficSamples } from '../../src/demo/traffic.ts'
import { decodeOtlpTraces } from '../../src/ingest/decode/index.ts'
import { encodeOtlpProto } from '../../src/ingest/testing/agent-traffic.ts'
import { groupByTrace, type Span } from '../../src/model/index.ts'
import { extractAgentRuns } from '../../src/transform/index.ts'
import { repoRoot } from '../helpers/cli.ts'
import { httpDbTraces } from '../helpers/mixed-traffic.ts'

interface OttlCondition {
  error_mode: string
  span: string[]
  spanevent: string[]
}

const config = parse(readFileSync(`${repoRoot}deploy/otelcol-agent-only-tier2.yaml`, 'utf8'))
const policies = config.processors.tail_sampling.policies as { type: string; ottl_condition: OttlCondition }[]

/**
 * One condition of the forms the config uses, as the Collector evaluates it; any other form
 * throws, so a condition this test cannot read is not silently taken as false.
 */
function compile(condition: string): (span: Span) => boolean {
  const has = condition.match(/^span\.attributes\["([^"]+)"\] != nil$/)
  if (has) return (span) => span.attributes[has[1]!] !== undefined && span.attributes[has[1]!] !== null
  const name = condition.match(/^IsMatch\(span\.name, "([^"\\]+)"\)$/)
  if (name) {
    const re = new RegExp(name[1]!)
    return (span) => re.test(span.name)
  }
  const event = condition.match(/^IsMatch\(spanevent\.name, "([^"\\]+)"\)$/)
  if (event) {
    const re = new RegExp(event[1]!)
    return (span) => span.events.some((e) => re.test(e.name))
  }
  throw new Error(`an OTTL condition this test does not read: ${condition}`)
}

const { span: spanConditions, spanevent: eventConditions } = policies[0]!.ottl_condition
const conditions = [...spanConditions, ...eventConditions].map(compile)
/** Whether the policy keeps the trace: some condition holds for some span (the Collector ORs them). */
const kept = (trace: Span[]) => trace.some((span) => conditions.some((holds) => holds(span)))

const recorded = loadTrafficSamples(`${repoRoot}test/fixtures/data`).flatMap((sample) => [
  ...groupByTrace(decodeOtlpTraces(sample.payload, 'otlp_proto'), (s) => s.traceId).values(),
])
const spansOf = (spans: ReadableSpan[]) => decodeOtlpTraces(encodeOtlpProto(spans), 'otlp_proto')

describe('deploy/otelcol-agent-only-tier2.yaml', () => {
  it('has one policy, an ottl_condition that ignores unreadable spans', () => {
    expect(policies.map((p) => p.type)).toEqual(['ottl_condition'])
    expect(policies[0]!.ottl_condition.error_mode).toBe('ignore')
  })

  it('keeps every recorded trace in which tracescore run finds an agent run, of every producer', () => {
    const withRuns = recorded.filter((trace) =>
      extractAgentRuns(trace).some((run) => run.convention !== 'generic'),
    )
    expect(withRuns.length).toBeGreaterThanOrEqual(250)
    const dropped = withRuns.filter((trace) => !kept(trace))
    expect(dropped.map((trace) => `${trace[0]!.traceId} ${trace[0]!.scope.name}`)).toEqual([])
  })

  it('keeps no plain HTTP/DB trace', () => {
    const plain = [...groupByTrace(spansOf(httpDbTraces(50, 7)), (s) => s.traceId).values()]
    expect(plain).toHaveLength(50)
    expect(plain.filter(kept)).toEqual([])
  })

  it('reads each form of condition as the Collector does', () => {
    const span = (name: string, attributes: Span['attributes'], events: string[] = []) =>
      ({ name, attributes, events: events.map((e) => ({ name: e, attributes: {} })) }) as unknown as Span
    expect(kept([span('chat', { 'gen_ai.operation.name': 'chat' })])).toBe(true)
    expect(kept([span('ai.generateText', {})])).toBe(true)
    expect(kept([span('aiGenerate', {})])).toBe(false)
    expect(kept([span('x', {}, ['gen_ai.user.message'])])).toBe(true)
    expect(kept([span('x', { 'gen_ai.usage.input_tokens': 3 }, ['exception'])])).toBe(false)
    expect(() => compile('attributes["x"] == "y"')).toThrow(/does not read/)
  })
})
