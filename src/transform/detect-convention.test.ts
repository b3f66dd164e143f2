import { describe, expect, it } from 'vitest'
import type { Attributes } from '../model/index.ts'
import { detectConvention, findAgentSpans, isAgentRunSpan, spanRole } from './index.ts'
import { sid, span } from './testing/span-builder.ts'

const cases: [string, Attributes, string | undefined, string][] = [
  [
    'Mastra agent run',
    { 'mastra.span.type': 'agent_run', 'gen_ai.operation.name': 'invoke_agent' },
    'mastra',
    'agent',
  ],
  ['Mastra generation', { 'mastra.span.type': 'model_generation' }, 'mastra', 'model'],
  [
    'Mastra step',
    { 'mastra.span.type': 'model_step', 'gen_ai.operation.name': 'agent_step' },
    'mastra',
    'step',
  ],
  [
    'Mastra inference (a chat span)',
    { 'mastra.span.type': 'model_inference', 'gen_ai.operation.name': 'chat' },
    'mastra',
    'other',
  ],
  ['Mastra MCP tool', { 'mastra.span.type': 'mcp_tool_call' }, 'mastra', 'tool'],
  ['GenAI agent', { 'gen_ai.operation.name': 'invoke_agent' }, 'genai', 'agent'],
  ['GenAI chat', { 'gen_ai.operation.name': 'chat' }, 'genai', 'model'],
  ['GenAI generate_content', { 'gen_ai.operation.name': 'generate_content' }, 'genai', 'model'],
  ['GenAI tool', { 'gen_ai.operation.name': 'execute_tool' }, 'genai', 'tool'],
  ['GenAI embeddings', { 'gen_ai.operation.name': 'embeddings' }, 'genai', 'other'],
  [
    'AI SDK 7 + OpenInference processor',
    { 'gen_ai.operation.name': 'invoke_agent', 'openinference.span.kind': 'AGENT' },
    'genai',
    'agent',
  ],
  ['AI SDK generateText', { 'ai.operationId': 'ai.generateText' }, 'ai-sdk', 'agent'],
  ['AI SDK streamObject', { 'ai.operationId': 'ai.streamObject' }, 'ai-sdk', 'agent'],
  ['AI SDK doStream', { 'ai.operationId': 'ai.streamText.doStream' }, 'ai-sdk', 'model'],
  ['AI SDK toolCall', { 'ai.operationId': 'ai.toolCall' }, 'ai-sdk', 'tool'],
  ['AI SDK embed', { 'ai.operationId': 'ai.embed' }, 'ai-sdk', 'other'],
  [
    'AI SDK 6 + OpenInference processor',
    { 'ai.operationId': 'ai.toolCall', 'openinference.span.kind': 'TOOL' },
    'ai-sdk',
    'tool',
  ],
  ['OpenInference agent', { 'openinference.span.kind': 'AGENT' }, 'openinference', 'agent'],
  ['OpenInference LLM', { 'openinference.span.kind': 'LLM' }, 'openinference', 'model'],
  ['OpenInference tool', { 'openinference.span.kind': 'TOOL' }, 'openinference', 'tool'],
  [
    'OpenInference root chain (an agent candidate)',
    { 'openinference.span.kind': 'CHAIN' },
    'openinference',
    'agent',
  ],
  ['HTTP server span', { 'http.request.method': 'GET' }, undefined, 'other'],
]

describe('detectConvention and span roles', () => {
  it.each(cases)('%s', (_label, attributes, convention, role) => {
    const subject = span({ id: '1', name: 'x', attributes })
    expect(detectConvention(subject)).toBe(convention)
    expect(spanRole(subject)).toBe(role)
    expect(isAgentRunSpan(subject)).toBe(role === 'agent')
  })

  it('treats an OpenInference chain with a parent as a plain span', () => {
    expect(spanRole(span({ id: '1', parent: '0', attributes: { 'openinference.span.kind': 'CHAIN' } }))).toBe(
      'other',
    )
  })

  it('recognises AI SDK spans by name when the operation id is absent', () => {
    expect(spanRole(span({ id: '1', name: 'ai.generateText' }))).toBe('agent')
  })

  it('recognises spans with only the older GenAI per-message events as model calls', () => {
    const subject = span({
      id: '1',
      name: 'chat gpt-4',
      attributes: { 'gen_ai.system': 'openai' },
      events: [{ name: 'gen_ai.user.message', attributes: { content: 'hi' } }],
    })
    expect(detectConvention(subject)).toBe('genai')
    expect(spanRole(subject)).toBe('model')
  })

  it('finds agent spans, earliest first, nested ones included', () => {
    const spans = [
      span({ id: 'b', parent: 'a', start: 5, attributes: { 'gen_ai.operation.name': 'invoke_agent' } }),
      span({ id: 'c', parent: 'a', start: 2, attributes: { 'gen_ai.operation.name': 'chat' } }),
      span({ id: 'a', start: 0, end: 50, attributes: { 'gen_ai.operation.name': 'invoke_agent' } }),
    ]
    expect(findAgentSpans(spans).map((s) => s.spanId)).toEqual([sid('a'), sid('b')])
  })
})
