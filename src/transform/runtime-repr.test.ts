import { describe, expect, it } from 'vitest'
import { isRuntimeRepr } from './runtime-repr.ts'

describe('isRuntimeRepr', () => {
  it.each([
    "StopEvent(result=AgentOutput(response=ChatMessage(role=<MessageRole.ASSISTANT: 'assistant'>, additional_kwargs={}, blocks=[TextBlock(block_type='text', text='Hi')]), tool_calls=[], raw=None, current_agent_name='Agent'))",
    // cut short by the instrumentation's length limit
    'StopEvent(result=AgentOutput(response=ChatMessage(role=<Mess',
    'AgentOutput()',
    "<MessageRole.ASSISTANT: 'assistant'>",
    '<Message role=assistant>',
    '<llama_index.core.workflow.events.StopEvent object at 0x7f3a2c1d9e10>',
    'dev.langchain4j.data.message.AiMessage@1b6d3586',
    'AiMessage { text = "Hello" toolExecutionRequests = [] }',
    '[object Object]',
  ])('knows %s for a repr', (text) => {
    expect(isRuntimeRepr(text)).toBe(true)
  })

  it.each([
    'Your order A17 was refunded.',
    'Refund(order=A17) is done.',
    'Use f(x=1) to call it.',
    '<b>Refunded</b>',
    '{"result": "ok"}',
    'Version 1.2.3@beta',
    'The answer: {x = 1}',
    '',
  ])('leaves %s as text', (text) => {
    expect(isRuntimeRepr(text)).toBe(false)
  })
})
