import { invalidUtf8, jsonError } from './errors.ts'
import {
  finishNumber,
  invalidLiteral,
  literalOf,
  numberState,
  plainIntegerEnd,
  scanLiteral,
  scanNumber,
} from './number.ts'
import { continueStray, stray } from './scan.ts'
import { beginToken, closeContainer, flushRun, openContainer, wholeToken } from './sink.ts'
import {
  type JsonStream,
  L_LITERAL,
  L_NONE,
  L_NUMBER,
  L_STRAY,
  S_AFTER_VALUE,
  S_COLON,
  S_END,
  S_KEY,
  S_KEY_OR_CLOSE,
  S_VALUE,
  S_VALUE_OR_CLOSE,
} from './state.ts'
import { plainStringEnd, scanString, scanStringFast, unfinishedString } from './string.ts'
import { KEY, LITERAL, NUMBER, OBJ_OPEN, STRING } from './tokens.ts'

function closerOf(st: JsonStream): number {
  return st.stack[st.depth - 1] === OBJ_OPEN ? 0x7d : 0x5d
}

// Finishes the token a previous chunk ended inside of.
function resume(st: JsonStream, buf: Uint8Array, n: number): number {
  if (st.lex === L_NUMBER) return scanNumber(st, buf, 0, n, 0)
  if (st.lex === L_LITERAL) return scanLiteral(st, buf, 0, n)
  if (st.lex === L_STRAY) return continueStray(st, buf, 0, n)
  return scanString(st, buf, 0, n, 0)
}

function value(st: JsonStream, buf: Uint8Array, i: number, n: number, c: number): number {
  if (c === 0x22) {
    const end = plainStringEnd(buf, i + 1, n)
    if (end > 0) {
      wholeToken(st, STRING, buf, i, end)
      return end
    }
    beginToken(st, STRING, i)
    return scanStringFast(st, buf, i + 1, n, i)
  }
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
    const end = plainIntegerEnd(buf, i, n)
    if (end > 0) {
      wholeToken(st, NUMBER, buf, i, end)
      return end
    }
    beginToken(st, NUMBER, i)
    st.aux = numberState(c)
    return scanNumber(st, buf, i + 1, n, i)
  }
  if (c === 0x7b || c === 0x5b) {
    openContainer(st, buf, i)
    return i + 1
  }
  if (c === 0x74 || c === 0x66 || c === 0x6e) {
    beginToken(st, LITERAL, i)
    st.literal = literalOf(c)
    st.aux = 0
    return scanLiteral(st, buf, i, n)
  }
  if (c === 0x5d && st.depth > 0 && closerOf(st) === 0x5d) {
    if (st.state === S_VALUE_OR_CLOSE) {
      closeContainer(st, buf, i)
      return i + 1
    }
    throw jsonError(st, st.base + i, 'Trailing comma before ]')
  }
  return stray(st, buf, i, n, 'a value')
}

function key(st: JsonStream, buf: Uint8Array, i: number, n: number, c: number): number {
  if (c === 0x22) {
    const end = plainStringEnd(buf, i + 1, n)
    if (end > 0) {
      wholeToken(st, KEY, buf, i, end)
      return end
    }
    beginToken(st, KEY, i)
    return scanStringFast(st, buf, i + 1, n, i)
  }
  if (c === 0x7d) {
    if (st.state === S_KEY) throw jsonError(st, st.base + i, 'Trailing comma before }')
    closeContainer(st, buf, i)
    return i + 1
  }
  return stray(st, buf, i, n, 'a key in double quotes')
}

function afterValue(st: JsonStream, buf: Uint8Array, i: number, n: number, c: number): number {
  const closer = closerOf(st)
  if (c === 0x2c) {
    st.state = closer === 0x7d ? S_KEY : S_VALUE
    return i + 1
  }
  if (c === closer) {
    closeContainer(st, buf, i)
    return i + 1
  }
  return stray(st, buf, i, n, closer === 0x7d ? "',' or '}'" : "',' or ']'")
}

// Skips whitespace, counting lines (LF); in minify, the run of input before it is copied first.
function whitespace(st: JsonStream, buf: Uint8Array, i: number, n: number): number {
  if (st.runStart >= 0) flushRun(st, buf, i)
  for (; i < n; i++) {
    const c = buf[i]!
    if (c === 0x0a) {
      st.line++
      st.lineStart = st.base + i + 1 + st.adjust
    } else if (c !== 0x20 && c !== 0x0d && c !== 0x09) {
      break
    }
  }
  if (st.runStart >= 0) st.runStart = i
  return i
}

// Validates a chunk of the input against RFC 8259 from `from` on and sends its tokens on
// (src/ops/json/format/sink.ts), with an explicit stack instead of recursion: depth is bounded by memory, never
// by the call stack. Stops between tokens once the printed output passes st.pieceBytes, returning where
// (call again from there, with the same chunk); returns the chunk's length when it is all read.
export function feed(st: JsonStream, buf: Uint8Array, from = 0): number {
  const n = buf.length
  let i = from === 0 && st.lex !== L_NONE ? resume(st, buf, n) : from
  const budget = st.pieceBytes
  const printer = st.printer
  while (i < n) {
    if (printer.length > budget) return i
    const c = buf[i]!
    if (c <= 0x20 && (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09)) {
      i = whitespace(st, buf, i, n)
      continue
    }
    const state = st.state
    if (state === S_AFTER_VALUE) {
      if (c === 0x2c) {
        st.state = st.stack[st.depth - 1] === OBJ_OPEN ? S_KEY : S_VALUE
        i++
      } else {
        i = afterValue(st, buf, i, n, c)
      }
    } else if (state <= S_VALUE_OR_CLOSE) i = value(st, buf, i, n, c)
    else if (state <= S_KEY_OR_CLOSE) i = key(st, buf, i, n, c)
    else if (state === S_COLON && c === 0x3a) {
      st.state = S_VALUE
      i++
    } else {
      i = stray(
        st,
        buf,
        i,
        n,
        state === S_COLON ? "':' after the key" : 'end of input after the top-level value',
      )
    }
  }
  if (st.runStart >= 0) {
    if (st.lex !== L_STRAY) flushRun(st, buf, n)
    st.runStart = 0
  }
  st.base += n
  return n
}

// The end of the input: the token in progress must be complete, and so must the document.
export function finish(st: JsonStream): void {
  if (st.lex === L_NUMBER) finishNumber(st)
  else if (st.lex === L_LITERAL) throw invalidLiteral(st)
  else if (st.lex === L_STRAY) throw invalidUtf8(st, st.seqStart, st.seqLead)
  else if (st.lex !== L_NONE) throw unfinishedString(st)
  if (st.state === S_END) return
  if (!st.started) throw jsonError(st, st.base, 'The JSON text is empty')
  const unclosed = st.depth > 0 ? ` (${st.depth} unclosed)` : ''
  throw jsonError(st, st.base, `Unexpected end of input${unclosed}`)
}
