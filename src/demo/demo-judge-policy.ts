import { type ChatMessage, type JudgePolicy, messageText } from './scripted-judge-server.ts'

const fenced = /<(untrusted-data-[a-z0-9]+)>\n([\s\S]*?)\n<\/\1>/g

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/\p{L}{4,}/gu) ?? [])
}

/**
 * The demo's scripted judge (no LLM is called): scores an answer by how many of the request's
 * content words it takes up, and explains that in one sentence. Deterministic, so the demo's
 * numbers are reproducible; clearly not a model's opinion.
 */
export const demoJudgePolicy: JudgePolicy = ({ messages }) => {
  const prompt = messages.map((m: ChatMessage) => messageText(m)).join('\n')
  if (/explain why/i.test(prompt)) {
    const score = prompt.match(/score of ([0-9.]+)/)?.[1] ?? '?'
    return `Scripted judge: the answer reuses the request's key terms to a degree that gives ${score}.`
  }
  const sections = [...prompt.matchAll(fenced)].map((m) => m[2] ?? '')
  const [request = '', answer = ''] = sections
  if (answer.trim() === '') return JSON.stringify({ score: 0 })
  const asked = words(request)
  const shared = [...words(answer)].filter((w) => asked.has(w)).length
  const score = asked.size === 0 ? 0.5 : Math.min(1, 0.4 + (0.6 * shared) / Math.min(asked.size, 5))
  return JSON.stringify({ score: Math.round(score * 100) / 100 })
}
