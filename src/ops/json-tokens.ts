import { AppError } from '../errors.ts'
import { locate } from '../lib/json-error.ts'

// Token kinds of the lossless JSON tokenizer. Colons and commas are implied by the structure and not stored.
export const OBJ_OPEN = 1
export const OBJ_CLOSE = 2
export const ARR_OPEN = 3
export const ARR_CLOSE = 4
export const KEY = 5
export const STRING = 6
export const NUMBER = 7
export const LITERAL = 8
// Added to KEY/STRING when the token holds a backslash escape, so plain keys are sliced, never decoded.
export const ESCAPED = 0x10

// Struct of arrays: four typed arrays instead of one object per token keeps a 20 MB document cheap.
// start/end are UTF-16 offsets into the text; link pairs each open token with its close token and back.
export interface TokenList {
  count: number
  kind: Uint8Array
  start: Int32Array
  end: Int32Array
  link: Int32Array
}

export function createTokenList(textLength: number): TokenList {
  const capacity = Math.max(16, Math.min(textLength >> 2, 1 << 16))
  return {
    count: 0,
    kind: new Uint8Array(capacity),
    start: new Int32Array(capacity),
    end: new Int32Array(capacity),
    link: new Int32Array(capacity),
  }
}

function grow(list: TokenList): void {
  const capacity = list.kind.length * 2
  const kind = new Uint8Array(capacity)
  const start = new Int32Array(capacity)
  const end = new Int32Array(capacity)
  const link = new Int32Array(capacity)
  kind.set(list.kind)
  start.set(list.start)
  end.set(list.end)
  link.set(list.link)
  list.kind = kind
  list.start = start
  list.end = end
  list.link = link
}

export function pushToken(list: TokenList, kind: number, start: number, end: number): number {
  if (list.count === list.kind.length) grow(list)
  const index = list.count++
  list.kind[index] = kind
  list.start[index] = start
  list.end[index] = end
  return index
}

// The value a key token stands for: escapes are decoded so "a" and "\u0061" are the same key.
export function keyOf(text: string, list: TokenList, index: number): string {
  const start = list.start[index]!
  const end = list.end[index]!
  return list.kind[index]! & ESCAPED
    ? (JSON.parse(text.slice(start, end)) as string)
    : text.slice(start + 1, end - 1)
}

// Index of the last token of the value that starts at `index`.
export function valueEnd(list: TokenList, index: number): number {
  const kind = list.kind[index]
  return kind === OBJ_OPEN || kind === ARR_OPEN ? list.link[index]! : index
}

function describeChar(text: string, offset: number): string {
  if (offset >= text.length) return 'end of input'
  const code = text.codePointAt(offset)!
  if (code === 0x27) return `"'"`
  if (code > 0x20 && code < 0x7f) return `'${text[offset]}'`
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
}

export function syntaxError(text: string, offset: number, reason: string): AppError {
  const where = locate(text, offset)
  return new AppError(
    'ERR_INVALID_JSON',
    `Invalid JSON at line ${where.line}, column ${where.column}: ${reason}.`,
    { ...where, reason },
  )
}

// Names the usual non-JSON habits (comments, single quotes, NaN) instead of a bare "unexpected".
export function unexpected(text: string, offset: number, expected: string): AppError {
  const c = text.charCodeAt(offset)
  let hint = ''
  if (c === 0x27) hint = ' (strings and keys take double quotes)'
  else if (c === 0x2f) hint = ' (JSON has no comments)'
  else if (c === 0x4e || c === 0x49) hint = ' (NaN and Infinity are not JSON numbers)'
  else if (c === 0x2b || c === 0x2e) hint = ' (a number starts with - or a digit)'
  else if (c === 0xfeff) hint = ' (a byte order mark is allowed only at the very start)'
  return syntaxError(text, offset, `Unexpected ${describeChar(text, offset)}, expected ${expected}${hint}`)
}
