/**
 * Traces built to make the transform do the most work per span (issue 11): each generator takes
 * a size (about the number of spans, or of messages) and returns the spans of one trace. Used by
 * the hostile-input tests here and timed at doubling sizes by `bench/hostile.bench.ts`.
 */
import type { Span } from '../../model/index.ts'
import { span } from './span-builder.ts'

const AGENT = { 'gen_ai.operation.name': 'invoke_agent' }

/** A GenAI tool span of call `call<i>`: arguments `{i}`, result `i`. */
function toolSpan(
  place: { id: string; parent: string; start: number; end: number },
  name: string,
  i: number,
): Span {
  return span({
    ...place,
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': name,
      'gen_ai.tool.call.id': `call${i}`,
      'gen_ai.tool.call.arguments': `{"i":${i}}`,
      'gen_ai.tool.call.result': `${i}`,
    },
  })
}

/**
 * One agent, a chain of `size / 2` plain spans under it, and `size / 2` nested agents hanging
 * at the bottom of the chain: finding each nested agent's parent run walks the whole chain.
 * Every nested run's parent is the root run.
 */
export function agentsUnderDeepChain(size: number): Span[] {
  const depth = Math.max(1, Math.floor(size / 2))
  const spans: Span[] = [
    span({ id: 'root', end: 4 * size + 10, attributes: AGENT }),
    // A model call of its own: an agent holding runs and doing nothing itself is only a wrapper.
    span({ id: 'model', parent: 'root', start: 1, end: 2, attributes: { 'gen_ai.operation.name': 'chat' } }),
  ]
  for (let i = 0; i < depth; i++) {
    spans.push(span({ id: `c${i}`, parent: i === 0 ? 'root' : `c${i - 1}`, start: 1, end: 4 * size }))
  }
  for (let i = 0; i < size - depth; i++) {
    spans.push(
      span({
        id: `a${i}`,
        parent: `c${depth - 1}`,
        start: 2 + i,
        end: 3 + i,
        attributes: { ...AGENT, 'gen_ai.agent.name': `sub${i}` },
      }),
    )
  }
  return spans
}

/**
 * One long agent run holding everything, `size / 2` short runs that have all finished, then
 * `size / 2` tool spans whose parents are missing, timed after the short runs: finding the run
 * whose window holds each of them passes every finished run. All of them belong to the long run.
 */
export function orphansAfterFinishedAgents(size: number): Span[] {
  const agents = Math.max(1, Math.floor(size / 2))
  const orphanStart = 10 * agents + 100
  const spans: Span[] = [
    span({
      id: 'long',
      start: 0,
      end: orphanStart + 10 * size,
      attributes: { ...AGENT, 'gen_ai.agent.name': 'long' },
    }),
  ]
  for (let i = 0; i < agents; i++) {
    spans.push(span({ id: `a${i}`, start: 10 + 10 * i, end: 15 + 10 * i, attributes: AGENT }))
  }
  for (let i = 0; i < size - agents; i++) {
    spans.push(
      toolSpan(
        { id: `o${i}`, parent: `gone${i}`, start: orphanStart + i, end: orphanStart + i + 1 },
        'lookup',
        i,
      ),
    )
  }
  return spans
}

/**
 * One agent whose single model call holds a chain of `size` tool spans, each nested in the one
 * before (a tool calling a tool calling a tool...): finding each tool's step walks up the chain.
 */
export function nestedToolSpans(size: number): Span[] {
  const spans: Span[] = [
    span({ id: 'root', end: 2 * size + 10, attributes: AGENT }),
    span({
      id: 'model',
      parent: 'root',
      start: 1,
      end: 2 * size + 5,
      attributes: { 'gen_ai.operation.name': 'chat' },
    }),
  ]
  for (let i = 0; i < size; i++) {
    const parent = i === 0 ? 'model' : `t${i - 1}`
    spans.push(toolSpan({ id: `t${i}`, parent, start: 2 + i, end: 2 * size + 4 - i }, 'step', i))
  }
  return spans
}

/**
 * One agent whose model prompt holds `size` system messages (each text twice, so `size / 2`
 * distinct ones) and one user message: de-duplicating the system texts by searching the list
 * for each one is quadratic.
 */
export function manySystemMessages(size: number): Span[] {
  const distinct = Math.max(1, Math.floor(size / 2))
  const messages: unknown[] = []
  for (let i = 0; i < size; i++) {
    messages.push({ role: 'system', parts: [{ type: 'text', content: `rule ${i % distinct}` }] })
  }
  messages.push({ role: 'user', parts: [{ type: 'text', content: 'hello' }] })
  return [
    span({ id: 'root', end: 100, attributes: AGENT }),
    span({
      id: 'model',
      parent: 'root',
      start: 1,
      end: 50,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': JSON.stringify(messages),
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', parts: [{ type: 'text', content: 'hi' }] },
        ]),
      },
    }),
  ]
}

/** Every hostile class, by the name the benchmark reports. */
export const HOSTILE_TRANSFORM_INPUTS: Record<string, (size: number) => Span[]> = {
  'agents under a deep chain': agentsUnderDeepChain,
  'orphans after finished agents': orphansAfterFinishedAgents,
  'nested tool spans': nestedToolSpans,
  'many system messages': manySystemMessages,
}
