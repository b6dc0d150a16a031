import { jsonError, unexpected } from './errors.ts'
import { stray } from './scan.ts'
import { endToken, tokenBytes } from './sink.ts'
import { type JsonStream, L_LITERAL, L_NONE, L_NUMBER } from './state.ts'

// Numbers (RFC 8259 §6) and the literals true, false and null, resumable across chunks: see scan.ts.

// Number states; the starred ones may end the number.
const N_SIGN = 0 // after '-'
const N_ZERO = 1 // * a leading 0
const N_INT = 2 // * integer digits
const N_DOT = 3 // after '.'
const N_FRAC = 4 // * fraction digits
const N_EXP = 5 // after 'e' or 'E'
const N_EXP_SIGN = 6 // after the exponent's sign
const N_EXP_DIGITS = 7 // * exponent digits

// The common case, apart: an integer whole in the chunk (-?[1-9][0-9]* or -?0, then a byte that ends it).
// Returns the index after it, or -1 for anything else (scanNumber then reads it).
export function plainIntegerEnd(buf: Uint8Array, i: number, n: number): number {
  if (buf[i] === 0x2d) i++
  if (i >= n) return -1
  const first = buf[i]!
  if (first === 0x30) i++
  else if (first > 0x30 && first <= 0x39) {
    i++
    while (i < n && isDigit(buf[i]!)) i++
  } else return -1
  if (i >= n) return -1
  const c = buf[i]!
  return isDigit(c) || c === 0x2e || (c | 0x20) === 0x65 ? -1 : i
}

export function numberState(first: number): number {
  return first === 0x2d ? N_SIGN : first === 0x30 ? N_ZERO : N_INT
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39
}

function endNumber(st: JsonStream, buf: Uint8Array, from: number, i: number): number {
  st.lex = L_NONE
  tokenBytes(st, buf, from, i)
  endToken(st)
  return i
}

// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? ; the bytes are kept as written, never turned into a double.
export function scanNumber(st: JsonStream, buf: Uint8Array, i: number, n: number, from: number): number {
  let state = st.aux
  while (i < n) {
    const c = buf[i]!
    if (state === N_INT || state === N_FRAC || state === N_EXP_DIGITS) {
      if (isDigit(c)) {
        i++
        continue
      }
      if (state === N_EXP_DIGITS) return endNumber(st, buf, from, i)
      if (c === 0x2e && state === N_INT) state = N_DOT
      else if ((c | 0x20) === 0x65) state = N_EXP
      else return endNumber(st, buf, from, i)
    } else if (state === N_ZERO) {
      if (isDigit(c)) throw jsonError(st, st.base + i, 'Leading zeros are not allowed in numbers')
      if (c === 0x2e) state = N_DOT
      else if ((c | 0x20) === 0x65) state = N_EXP
      else return endNumber(st, buf, from, i)
    } else if (state === N_SIGN) {
      if (!isDigit(c)) return stray(st, buf, i, n, 'a digit')
      state = c === 0x30 ? N_ZERO : N_INT
    } else if (state === N_DOT) {
      if (!isDigit(c)) return stray(st, buf, i, n, 'a digit after the decimal point')
      state = N_FRAC
    } else {
      if (state === N_EXP && (c === 0x2b || c === 0x2d)) state = N_EXP_SIGN
      else if (isDigit(c)) state = N_EXP_DIGITS
      else return stray(st, buf, i, n, 'a digit in the exponent')
    }
    i++
  }
  st.aux = state
  st.lex = L_NUMBER
  tokenBytes(st, buf, from, n)
  return n
}

// At the end of the input inside a number: it is complete, or says what it lacked.
export function finishNumber(st: JsonStream): void {
  const state = st.aux
  if (state === N_SIGN) throw unexpected(st, st.base, -1, 'a digit')
  if (state === N_DOT) throw unexpected(st, st.base, -1, 'a digit after the decimal point')
  if (state === N_EXP || state === N_EXP_SIGN) throw unexpected(st, st.base, -1, 'a digit in the exponent')
  st.lex = L_NONE
  endToken(st)
}

const WORDS = [Buffer.from('true'), Buffer.from('false'), Buffer.from('null')]

export function literalOf(first: number): Uint8Array {
  return WORDS[first === 0x74 ? 0 : first === 0x66 ? 1 : 2]!
}

export function invalidLiteral(st: JsonStream): Error {
  return jsonError(st, st.tokenStart, `Invalid literal, expected ${Buffer.from(st.literal).toString()}`)
}

// true, false or null, matched byte by byte (st.aux bytes matched so far).
export function scanLiteral(st: JsonStream, buf: Uint8Array, i: number, n: number): number {
  const word = st.literal
  while (st.aux < word.length) {
    if (i === n) {
      st.lex = L_LITERAL
      return n
    }
    if (buf[i] !== word[st.aux]) throw invalidLiteral(st)
    st.aux++
    i++
  }
  st.lex = L_NONE
  tokenBytes(st, word, 0, word.length)
  endToken(st)
  return i
}
