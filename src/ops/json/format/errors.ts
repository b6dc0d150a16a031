import { AppError } from '../../../errors.ts'

// Where the tokenizer is, as the errors need it. Input is UTF-8 bytes; positions are reported in UTF-16
// code units of the text they decode to (what `input` strings are measured in), so the tokenizer keeps
// `adjust` = UTF-16 units minus bytes over everything read, and the UTF-16 offset of the current line.
// Lines are counted by LF, which JSON allows only in whitespace.
export interface Position {
  // byte offset of the current chunk in the whole input
  base: number
  adjust: number
  line: number
  lineStart: number
  // a raw body: errors also carry byte_offset
  raw: boolean
}

export function jsonError(at: Position, byteOffset: number, reason: string): AppError {
  const offset = byteOffset + at.adjust
  const column = offset - at.lineStart + 1
  const details: Record<string, unknown> = { line: at.line, column, offset }
  if (at.raw) details.byte_offset = byteOffset
  details.reason = reason
  return new AppError(
    'ERR_INVALID_JSON',
    `Invalid JSON at line ${at.line}, column ${column}: ${reason}.`,
    details,
  )
}

function describe(codePoint: number): string {
  if (codePoint === 0x27) return `"'"`
  if (codePoint > 0x20 && codePoint < 0x7f) return `'${String.fromCharCode(codePoint)}'`
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`
}

// Names the usual non-JSON habits (comments, single quotes, NaN) instead of a bare "unexpected".
function hint(codePoint: number): string {
  if (codePoint === 0x27) return ' (strings and keys take double quotes)'
  if (codePoint === 0x2f) return ' (JSON has no comments)'
  if (codePoint === 0x4e || codePoint === 0x49) return ' (NaN and Infinity are not JSON numbers)'
  if (codePoint === 0x2b || codePoint === 0x2e) return ' (a number starts with - or a digit)'
  if (codePoint === 0xfeff) return ' (a byte order mark is allowed only at the very start)'
  return ''
}

// `codePoint` -1 is the end of the input.
export function unexpected(at: Position, byteOffset: number, codePoint: number, expected: string): AppError {
  const what = codePoint < 0 ? 'end of input' : describe(codePoint)
  const tail = codePoint < 0 ? '' : hint(codePoint)
  return jsonError(at, byteOffset, `Unexpected ${what}, expected ${expected}${tail}`)
}

export function invalidUtf8(at: Position, byteOffset: number, lead: number): AppError {
  const byte = lead.toString(16).toUpperCase().padStart(2, '0')
  return jsonError(at, byteOffset, `Invalid UTF-8 sequence starting with byte 0x${byte}`)
}

// Only for `input` strings: their lone surrogates reach the tokenizer as WTF-8 (ED A0..BF xx).
export function loneSurrogate(at: Position, byteOffset: number): AppError {
  return jsonError(
    at,
    byteOffset,
    'Lone UTF-16 surrogate in a string (it has no UTF-8 form; escape it as \\uXXXX)',
  )
}

export function controlCharacter(at: Position, byteOffset: number, c: number): AppError {
  const code = c.toString(16).toUpperCase().padStart(4, '0')
  return jsonError(
    at,
    byteOffset,
    `Unescaped control character U+${code} in a string; write it as \\u${code}`,
  )
}
