/**
 * Reads a Python literal as `repr()` writes it (`{'a': 1, 'b': [True, None]}`): dicts, lists,
 * tuples, strings in either quote, numbers, `True`, `False`, `None`. Python SDKs often hand a
 * model, or a span, `str(value)` instead of JSON. Undefined when the text is not one literal
 * (anything else, or nested deeper than `MAX_DEPTH`).
 */
export function parsePythonLiteral(text: string): unknown {
  const reader = { text, at: 0 }
  try {
    const value = readValue(reader, 0)
    skipSpace(reader)
    return reader.at === text.length ? value : undefined
  } catch {
    return undefined
  }
}

const MAX_DEPTH = 100

interface Reader {
  text: string
  at: number
}

function fail(): never {
  throw new SyntaxError('not a Python literal')
}

function skipSpace(reader: Reader): void {
  while (reader.at < reader.text.length && /\s/.test(reader.text[reader.at]!)) reader.at++
}

function readValue(reader: Reader, depth: number): unknown {
  if (depth > MAX_DEPTH) fail()
  skipSpace(reader)
  const char = reader.text[reader.at]
  if (char === '{') return readDict(reader, depth)
  if (char === '[') return readList(reader, depth, ']')
  if (char === '(') return readList(reader, depth, ')')
  if (char === "'" || char === '"') return readString(reader)
  return readWord(reader)
}

function readDict(reader: Reader, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  reader.at++
  for (;;) {
    skipSpace(reader)
    if (reader.text[reader.at] === '}') {
      reader.at++
      return out
    }
    const key = readValue(reader, depth + 1)
    skipSpace(reader)
    if (reader.text[reader.at] !== ':') fail()
    reader.at++
    Object.defineProperty(out, String(key), {
      value: readValue(reader, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    })
    skipSpace(reader)
    if (reader.text[reader.at] === ',') reader.at++
    else if (reader.text[reader.at] !== '}') fail()
  }
}

function readList(reader: Reader, depth: number, close: string): unknown[] {
  const out: unknown[] = []
  reader.at++
  for (;;) {
    skipSpace(reader)
    if (reader.text[reader.at] === close) {
      reader.at++
      return out
    }
    out.push(readValue(reader, depth + 1))
    skipSpace(reader)
    if (reader.text[reader.at] === ',') reader.at++
    else if (reader.text[reader.at] !== close) fail()
  }
}

const ESCAPES = new Map([
  ['n', '\n'],
  ['t', '\t'],
  ['r', '\r'],
  ['0', '\0'],
])

function readString(reader: Reader): string {
  const quote = reader.text[reader.at]!
  let out = ''
  reader.at++
  while (reader.at < reader.text.length) {
    const char = reader.text[reader.at++]!
    if (char === quote) return out
    if (char !== '\\') {
      out += char
      continue
    }
    const next = reader.text[reader.at++]
    if (next === undefined) fail()
    if (next === 'x' || next === 'u' || next === 'U') {
      const length = next === 'x' ? 2 : next === 'u' ? 4 : 8
      const code = Number.parseInt(reader.text.slice(reader.at, reader.at + length), 16)
      if (Number.isNaN(code)) fail()
      out += String.fromCodePoint(code)
      reader.at += length
    } else out += ESCAPES.get(next) ?? next
  }
  return fail()
}

function readWord(reader: Reader): unknown {
  const match = /^(?:True|False|None|-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)/.exec(
    reader.text.slice(reader.at, reader.at + 64),
  )
  if (!match) fail()
  reader.at += match[0].length
  if (match[0] === 'True') return true
  if (match[0] === 'False') return false
  if (match[0] === 'None') return null
  return Number(match[0])
}
