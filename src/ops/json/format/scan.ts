import { invalidUtf8, loneSurrogate, unexpected } from './errors.ts'
import { flushRun } from './sink.ts'
import { type JsonStream, L_NONE, L_STRAY } from './state.ts'

// RFC 8259 lexical rules on UTF-8 bytes, one token at a time and resumable (string.ts,
// number.ts): each scanner takes the chunk and where to go on, and either finishes its token
// (returning the index after it) or records where it stopped in the state and returns the chunk's length.
// No allocation on success. This file: the byte tables, UTF-8 sequences, and characters out of place.

function table(test: (c: number) => boolean): Uint8Array {
  const t = new Uint8Array(256)
  for (let c = 0; c < 256; c++) t[c] = test(c) ? 1 : 0
  return t
}

// bytes that stand for themselves in a string: printable ASCII but the quote and the backslash
export const PLAIN = table((c) => c >= 0x20 && c < 0x80 && c !== 0x22 && c !== 0x5c)
export const HEX = table(
  (c) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66),
)
// after a backslash: " \ / b f n r t (u is handled apart)
export const ESCAPES = table((c) => '"\\/bfnrt'.includes(String.fromCharCode(c)))

// For a lead byte: how many bytes follow (0 for one that cannot lead), and the bounds of the first of them.
export const FOLLOW = new Uint8Array(256)
export const LOW = new Uint8Array(256).fill(0x80)
export const HIGH = new Uint8Array(256).fill(0xbf)
for (let c = 0xc2; c <= 0xf4; c++) FOLLOW[c] = c < 0xe0 ? 1 : c < 0xf0 ? 2 : 3
LOW[0xe0] = 0xa0
HIGH[0xed] = 0x9f
LOW[0xf0] = 0x90
HIGH[0xf4] = 0x8f

export function isContinuation(c: number): boolean {
  return c >= 0x80 && c <= 0xbf
}

// RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF. Returns the number of bytes that must
// follow the lead byte and sets the bounds of the next one, or returns -1 for a byte that cannot lead.
// In `input` text, ED A0..BF (a WTF-8 lone surrogate) passes only where `surrogates` asks for it.
export function beginSequence(st: JsonStream, lead: number, at: number, surrogates: boolean): number {
  st.seqLead = lead
  st.seqStart = at
  st.seqLow = 0x80
  st.seqHigh = 0xbf
  if (lead >= 0xc2 && lead <= 0xdf) {
    st.seqAdjust = -1
    st.codePoint = lead & 0x1f
    return 1
  }
  st.seqAdjust = -2
  if (lead >= 0xe0 && lead <= 0xef) {
    if (lead === 0xe0) st.seqLow = 0xa0
    else if (lead === 0xed && !surrogates) st.seqHigh = 0x9f
    st.codePoint = lead & 0x0f
    return 2
  }
  if (lead >= 0xf0 && lead <= 0xf4) {
    if (lead === 0xf0) st.seqLow = 0x90
    else if (lead === 0xf4) st.seqHigh = 0x8f
    st.codePoint = lead & 0x07
    return 3
  }
  return -1
}

export function badSequence(st: JsonStream): Error {
  // only a lone surrogate can break the WTF-8 of a JavaScript string
  return st.text ? loneSurrogate(st, st.seqStart) : invalidUtf8(st, st.seqStart, st.seqLead)
}

// Reads the rest of a UTF-8 sequence; when the chunk ends first, st.aux bytes are still expected.
export function continueSequence(st: JsonStream, buf: Uint8Array, i: number, n: number): number {
  while (st.aux > 0) {
    if (i === n) return i
    const c = buf[i]!
    if (c < st.seqLow || c > st.seqHigh) throw badSequence(st)
    st.codePoint = (st.codePoint << 6) | (c & 0x3f)
    st.seqLow = 0x80
    st.seqHigh = 0xbf
    st.aux--
    i++
  }
  return i
}

// A character that cannot stand here: errors at once for ASCII; a non-ASCII one is first read whole
// (it may span chunks) so the error can name it, or say it is not UTF-8.
export function stray(st: JsonStream, buf: Uint8Array, i: number, n: number, expected: string): number {
  const c = buf[i]!
  if (c < 0x80) throw unexpected(st, st.base + i, c, expected)
  st.expected = expected
  st.aux = beginSequence(st, c, st.base + i, st.text)
  if (st.aux < 0) throw invalidUtf8(st, st.seqStart, c)
  st.lex = L_STRAY
  // a byte order mark is not copied: the run stops before it
  if (st.runStart >= 0) {
    flushRun(st, buf, i)
    st.runStart = i
  }
  return continueStray(st, buf, i + 1, n)
}

export function continueStray(st: JsonStream, buf: Uint8Array, i: number, n: number): number {
  i = continueSequence(st, buf, i, n)
  if (st.aux > 0) return n
  st.lex = L_NONE
  // U+FEFF as the very first character is a byte order mark: dropped and reported
  if (st.codePoint === 0xfeff && st.seqStart === 0) {
    st.bom = true
    st.adjust += st.seqAdjust
    if (st.runStart >= 0) st.runStart = i
    return i
  }
  throw unexpected(st, st.seqStart, st.codePoint, st.expected)
}
