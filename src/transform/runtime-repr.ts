/**
 * Whether a text is a language runtime's rendering of an object rather than text someone wrote:
 * what instrumentations record when they `str()`/`repr()` a framework object they cannot
 * serialize (LlamaIndex's `StopEvent(result=AgentOutput(response=ChatMessage(role=<MessageRole…`,
 * `<Message object at 0x7f…>`, Java's `com.acme.Reply@1b6d3586`, LangChain4j's
 * `AiMessage { text = "…" }`, JavaScript's `[object Object]`). Such text is never an answer or an
 * input: a run takes the part from its next source, or records it as not recorded.
 */
export function isRuntimeRepr(text: string): boolean {
  const t = text.trim()
  if (t.length === 0) return false
  // Each form starts with its own kind of character: only its patterns are tried (asked of every
  // input, answer and step text).
  const first = t.charCodeAt(0)
  if (first >= 65 && first <= 90) return (PYTHON_CALL.test(t) && outerCallEndsText(t)) || JAVA_FIELDS.test(t)
  if (first === 60) return PYTHON_ANGLE.test(t) || PYTHON_ADDRESS.test(t)
  if ((first >= 97 && first <= 122) || first === 95) return JAVA_IDENTITY.test(t)
  return t === '[object Object]'
}

/** `ClassName(field=…` or `ClassName()`: a dataclass, pydantic model or namedtuple repr (often cut short). */
const PYTHON_CALL = /^[A-Z][A-Za-z0-9_]*\((?:\)$|[a-z_][A-Za-z0-9_]*=)/
/** `<ClassName …>` / `<Enum.MEMBER: 'value'>` alone: no markup has a capitalised tag with no closing tag. */
const PYTHON_ANGLE = /^<[A-Z][\w.]*(?:[\s:][^<>]*)?>$/
/** `<module.Class object at 0x7f…>` (the default repr). */
const PYTHON_ADDRESS = /^<[\w.]+ object at 0x[0-9a-fA-F]+>$/
/** `com.acme.Reply@1b6d3586` (Java's default `toString`). */
const JAVA_IDENTITY = /^[a-z_][\w]*(?:\.[\w$]+)+@[0-9a-f]{4,}$/
/** `AiMessage { text = "…" … }` (LangChain4j's and Lombok-style `toString`). */
const JAVA_FIELDS = /^[A-Z]\w*\s?\{\s*[a-z]\w*\s?=/

/**
 * Whether the call that opens `text` closes at its very end, or never (a repr cut short): prose
 * such as `Refund(order=A17) is done.` goes on after it. Quoted strings are skipped.
 */
function outerCallEndsText(text: string): boolean {
  let depth = 0
  let quote: string | undefined
  for (let i = text.indexOf('('); i < text.length; i++) {
    const c = text[i]
    if (quote !== undefined) {
      if (c === '\\') i++
      else if (c === quote) quote = undefined
    } else if (c === "'" || c === '"') quote = c
    else if (c === '(' || c === '[' || c === '{') depth++
    else if (c === ')' || c === ']' || c === '}') {
      depth--
      if (depth === 0) return i === text.length - 1
    }
  }
  return true
}
