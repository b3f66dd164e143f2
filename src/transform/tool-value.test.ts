import { describe, expect, it } from 'vitest'
import { toolCallIdIn, toolResultValue } from './tool-value.ts'

describe('tool results read alike for every convention', () => {
  it('takes the output out of a record about the call (it names the tool and echoes its input)', () => {
    const output = {
      tool_name: 'get_weather',
      raw_input: { kwargs: { city: 'Paris' } },
      raw_output: { tempC: 14 },
    }
    expect(toolResultValue(output)).toEqual({ tempC: 14 })
    expect(toolResultValue({ tool_name: 'x', input: 1, output: '{"a": 1}' })).toEqual({ a: 1 })
    // A tool's own value that happens to name a tool is kept.
    expect(toolResultValue({ tool_name: 'x', raw_output: 2 })).toEqual({ tool_name: 'x', raw_output: 2 })
  })

  it("reads the call id a result envelope names (LangChain's ToolMessage)", () => {
    const message = {
      output: {
        lc: 1,
        id: ['langchain_core', 'messages', 'ToolMessage'],
        kwargs: { tool_call_id: 'call_1' },
      },
    }
    expect(toolCallIdIn(message)).toBe('call_1')
    expect(toolCallIdIn({ toolCallId: 'c2', content: 'x' })).toBe('c2')
    expect(toolCallIdIn({ result: { tool_call_id: 'deep' } })).toBeUndefined()
    expect(toolCallIdIn('call_1')).toBeUndefined()
  })
})
