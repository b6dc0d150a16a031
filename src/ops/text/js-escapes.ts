import { hexValue, invalidText, isHexDigit } from './shared.ts'

// Reads exactly `count` hex digits at j, or -1.
export function readHex(input: string, j: number, count: number): number {
  let value = 0
  for (let k = 0; k < count; k++) {
    const c = input.charCodeAt(j + k)
    if (!isHexDigit(c)) return -1
    value = value * 16 + hexValue(c)
  }
  return value
}

// \u{H...} at j (pointing at the '{'): the code point and the index after '}', or undefined.
export function readBracedCodePoint(input: string, j: number): { cp: number; end: number } | undefined {
  if (input[j] !== '{') return undefined
  const close = input.indexOf('}', j)
  if (close < j + 2) return undefined
  const digits = input.slice(j + 1, close)
  if (!/^[0-9A-Fa-f]+$/.test(digits)) return undefined
  const cp = Number.parseInt(digits, 16)
  return cp <= 0x10ffff ? { cp, end: close + 1 } : undefined
}

const JSON_ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
}

// JSON.stringify escaping (ES2019 well-formed: lone surrogates become \udXXX) without the quotes.
export function encodeJsonString(input: string): string {
  return JSON.stringify(input).slice(1, -1)
}

// The inner content of a JSON string (RFC 8259 §7); a complete "..." literal is accepted too, since a raw
// '"' can never start valid inner content.
export function decodeJsonString(input: string): string {
  const quoted = input.startsWith('"')
  const parts: string[] = []
  let copied = quoted ? 1 : 0
  for (let i = copied; i < input.length; i++) {
    const c = input.charCodeAt(i)
    if (c === 0x22) {
      if (!quoted) throw invalidText('json_string', i, 'A \'"\' inside a JSON string must be escaped as \\"')
      if (i !== input.length - 1) throw invalidText('json_string', i + 1, 'Text after the closing quote')
      parts.push(input.slice(copied, i))
      return parts.join('')
    }
    if (c < 0x20) throw invalidText('json_string', i, 'Control characters must be escaped in a JSON string')
    if (c !== 0x5c) continue
    parts.push(input.slice(copied, i))
    const e = input[i + 1]
    if (e === 'u') {
      const unit = readHex(input, i + 2, 4)
      if (unit < 0) throw invalidText('json_string', i, '\\u must be followed by four hex digits')
      parts.push(String.fromCharCode(unit))
      i += 5
    } else if (e !== undefined && Object.hasOwn(JSON_ESCAPES, e)) {
      parts.push(JSON_ESCAPES[e]!)
      i += 1
    } else {
      throw invalidText('json_string', i, 'Invalid escape in a JSON string')
    }
    copied = i + 1
  }
  if (quoted) throw invalidText('json_string', input.length, 'Missing closing quote')
  parts.push(input.slice(copied))
  return parts.join('')
}

const JS_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  "'": "\\'",
  '"': '\\"',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
  '\v': '\\v',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
}
const JS_NEEDS_ESCAPE =
  /[\\'"\x00-\x1f\x7f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

// Safe inside '...' or "..." literals; \x00 rather than \0, which a following digit would turn into octal.
export function encodeJsString(input: string): string {
  return input.replace(JS_NEEDS_ESCAPE, (c) => {
    const code = c.charCodeAt(0)
    return (
      JS_ESCAPES[c] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`)
    )
  })
}

const JS_SIMPLE: Record<string, string> = {
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  "'": "'",
  '"': '"',
  '\\': '\\',
}
const LINE_CONTINUATION = new Set(['\n', '\r', '\u2028', '\u2029'])

// One escape sequence at i (the backslash), as strict-mode ECMAScript reads it.
function jsEscape(input: string, i: number): { text: string; end: number } {
  const e = input[i + 1]
  if (e === undefined) throw invalidText('js_string', i, 'Unterminated escape at the end of the input')
  if (Object.hasOwn(JS_SIMPLE, e)) return { text: JS_SIMPLE[e]!, end: i + 2 }
  if (e === '0' && !/[0-9]/.test(input[i + 2] ?? '')) return { text: '\0', end: i + 2 }
  if (/[0-9]/.test(e))
    throw invalidText('js_string', i, 'Legacy octal and \\8 \\9 escapes are not allowed (strict mode)')
  if (e === 'x') {
    const value = readHex(input, i + 2, 2)
    if (value < 0) throw invalidText('js_string', i, '\\x must be followed by two hex digits')
    return { text: String.fromCharCode(value), end: i + 4 }
  }
  if (e === 'u') {
    const braced = readBracedCodePoint(input, i + 2)
    if (braced) return { text: String.fromCodePoint(braced.cp), end: braced.end }
    const unit = readHex(input, i + 2, 4)
    if (unit < 0)
      throw invalidText('js_string', i, '\\u must be followed by four hex digits or {code point ≤ 10FFFF}')
    return { text: String.fromCharCode(unit), end: i + 6 }
  }
  if (e === '\r' && input[i + 2] === '\n') return { text: '', end: i + 3 }
  if (LINE_CONTINUATION.has(e)) return { text: '', end: i + 2 }
  // any other character escapes to itself; a surrogate pair is one character
  const cp = input.codePointAt(i + 1)!
  return { text: String.fromCodePoint(cp), end: i + 1 + (cp > 0xffff ? 2 : 1) }
}

// The inner content of a JavaScript string literal; both quote characters may appear unescaped because the
// delimiter is not known.
export function decodeJsString(input: string): string {
  const parts: string[] = []
  let copied = 0
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i)
    if (c === 0x0a || c === 0x0d)
      throw invalidText('js_string', i, 'A line break must be escaped in a string literal')
    if (c !== 0x5c) continue
    const seq = jsEscape(input, i)
    parts.push(input.slice(copied, i), seq.text)
    copied = seq.end
    i = seq.end - 1
  }
  parts.push(input.slice(copied))
  return parts.join('')
}
