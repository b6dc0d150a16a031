import { syntaxError, unexpected } from './json-tokens.ts'

// RFC 8259 lexical rules, one token at a time, on char codes (no regex, no allocation on success).

export function skipWhitespace(text: string, i: number): number {
  const n = text.length
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break
    i++
  }
  return i
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
}

function scanEscape(text: string, i: number, open: number): number {
  const c = text.charCodeAt(i + 1)
  switch (c) {
    case 0x22: // "
    case 0x5c: // \
    case 0x2f: // /
    case 0x62: // b
    case 0x66: // f
    case 0x6e: // n
    case 0x72: // r
    case 0x74: // t
      return i + 2
    case 0x75: // u: exactly four hex digits; a lone surrogate escape is valid RFC 8259 grammar
      for (let k = i + 2; k < i + 6; k++) {
        if (k >= text.length) throw unterminated(text, open)
        if (!isHex(text.charCodeAt(k))) {
          throw syntaxError(text, k, 'Invalid \\u escape: expected four hex digits')
        }
      }
      return i + 6
  }
  if (i + 1 >= text.length) throw unterminated(text, open)
  throw syntaxError(text, i + 1, 'Invalid escape: only \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX exist')
}

function unterminated(text: string, open: number) {
  return syntaxError(text, text.length, `Unterminated string (opened at offset ${open})`)
}

// Returns end * 2 + (1 when the string holds an escape): two answers without allocating a pair.
export function scanString(text: string, open: number): number {
  const n = text.length
  let escaped = 0
  let i = open + 1
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 0x22) return (i + 1) * 2 + escaped
    if (c === 0x5c) {
      escaped = 1
      i = scanEscape(text, i, open)
      continue
    }
    if (c < 0x20) {
      const code = c.toString(16).toUpperCase().padStart(4, '0')
      throw syntaxError(text, i, `Unescaped control character U+${code} in a string; write it as \\u${code}`)
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = text.charCodeAt(i + 1)
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i += 2
        continue
      }
      throw syntaxError(
        text,
        i,
        'Lone UTF-16 surrogate in a string (it has no UTF-8 form; escape it as \\uXXXX)',
      )
    }
    i++
  }
  throw unterminated(text, open)
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39
}

function digits(text: string, i: number, what: string): number {
  if (!isDigit(text.charCodeAt(i))) throw unexpected(text, i, what)
  i++
  while (isDigit(text.charCodeAt(i))) i++
  return i
}

// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? ; the text is kept as written, never turned into a double.
export function scanNumber(text: string, start: number): number {
  let i = start
  if (text.charCodeAt(i) === 0x2d) i++
  if (text.charCodeAt(i) === 0x30) {
    i++
    if (isDigit(text.charCodeAt(i))) throw syntaxError(text, i, 'Leading zeros are not allowed in numbers')
  } else {
    i = digits(text, i, 'a digit')
  }
  if (text.charCodeAt(i) === 0x2e) i = digits(text, i + 1, 'a digit after the decimal point')
  const e = text.charCodeAt(i)
  if (e === 0x65 || e === 0x45) {
    i++
    const sign = text.charCodeAt(i)
    if (sign === 0x2b || sign === 0x2d) i++
    i = digits(text, i, 'a digit in the exponent')
  }
  return i
}

// Called on t, f or n only.
export function scanLiteral(text: string, start: number): number {
  const c = text.charCodeAt(start)
  const word = c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null'
  if (text.startsWith(word, start)) return start + word.length
  throw syntaxError(text, start, `Invalid literal, expected ${word}`)
}
