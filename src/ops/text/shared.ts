import { isUtf8 } from 'node:buffer'
import { AppError } from '../../errors.ts'
import { loneSurrogateAt } from '../encoding.ts'
import { invalidUtf8At } from '../utf8-error.ts'

export function invalidText(format: string, position: number, message: string): AppError {
  return new AppError('ERR_INVALID_ENCODING', `Position ${position}: ${message}`, { format, position })
}

// For formats that carry UTF-8 bytes (or XML/HTML text), a lone surrogate has no representation.
export function requireWellFormed(input: string, format: string): void {
  const at = loneSurrogateAt(input)
  if (at >= 0) {
    throw invalidText(format, at, 'The text holds a lone UTF-16 surrogate, which has no UTF-8 form')
  }
}

export function isHexDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
}

export function hexValue(c: number): number {
  return c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57
}

export type EmitByte = (byte: number, position: number) => void
// A decoder for a byte format: reports every byte with the input position it came from, throws on syntax errors.
export type ByteScanner = (input: string, emit: EmitByte) => void

// Emits the UTF-8 bytes of the character at i (a literal character in a byte format); returns its UTF-16 length.
export function emitUtf8Char(input: string, i: number, format: string, emit: EmitByte): number {
  const cp = input.codePointAt(i)!
  if (cp >= 0xd800 && cp <= 0xdfff) {
    throw invalidText(format, i, 'The text holds a lone UTF-16 surrogate, which has no UTF-8 form')
  }
  if (cp < 0x80) emit(cp, i)
  else if (cp < 0x800) {
    emit(0xc0 | (cp >> 6), i)
    emit(0x80 | (cp & 0x3f), i)
  } else if (cp < 0x10000) {
    emit(0xe0 | (cp >> 12), i)
    emit(0x80 | ((cp >> 6) & 0x3f), i)
    emit(0x80 | (cp & 0x3f), i)
  } else {
    emit(0xf0 | (cp >> 18), i)
    emit(0x80 | ((cp >> 12) & 0x3f), i)
    emit(0x80 | ((cp >> 6) & 0x3f), i)
    emit(0x80 | (cp & 0x3f), i)
  }
  return cp > 0xffff ? 2 : 1
}

// Collects the scanned bytes and decodes them as UTF-8; on ill-formed UTF-8 the input is scanned a second
// time to find where the offending byte came from, so the happy path keeps no per-byte positions.
export function decodeScannedUtf8(input: string, format: string, scan: ByteScanner): string {
  const bytes = scanBytes(input, scan)
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (isUtf8(view)) return view.toString('utf8')
  const bad = invalidUtf8At(view)
  let index = 0
  let position = 0
  scan(input, function locate(_byte, at) {
    if (index++ === bad) position = at
  })
  throw invalidText(
    format,
    position,
    `The decoded bytes are not valid UTF-8 (ill-formed sequence at byte ${bad})`,
  )
}

// WHATWG ASCII whitespace: what line wrapping and pasting put between the characters of an encoding.
export function isAsciiSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d
}

// A character as an error message names it: printable ASCII quoted, with its code point.
export function describeChar(c: number): string {
  const hex = `U+${c.toString(16).toUpperCase().padStart(4, '0')}`
  return c > 0x20 && c < 0x7f ? `'${String.fromCharCode(c)}' (${hex})` : hex
}

// The bytes a scanner reads, without positions (an answer in hex or Base64 rather than UTF-8).
export function scanBytes(input: string, scan: ByteScanner): Uint8Array {
  let bytes = new Uint8Array(Math.max(16, input.length))
  let size = 0
  scan(input, function collect(byte) {
    if (size === bytes.length) {
      const grown = new Uint8Array(bytes.length * 2)
      grown.set(bytes)
      bytes = grown
    }
    bytes[size++] = byte
  })
  return bytes.subarray(0, size)
}
