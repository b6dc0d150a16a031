import { controlCharacter, jsonError } from './errors.ts'
import {
  badSequence,
  beginSequence,
  continueSequence,
  ESCAPES,
  FOLLOW,
  HEX,
  HIGH,
  isContinuation,
  LOW,
  PLAIN,
} from './scan.ts'
import { endToken, tokenBytes } from './sink.ts'
import { type JsonStream, L_ESCAPE, L_HEX, L_NONE, L_STRING, L_UTF8 } from './state.ts'

// Strings and keys (RFC 8259 §7), resumable across chunks: see scan.ts.

// The common case, apart: a string of printable ASCII without escapes, whole in the chunk. Returns the
// index after its closing quote, or -1 for anything else (scanString then reads it).
export function plainStringEnd(buf: Uint8Array, i: number, n: number): number {
  while (i < n && PLAIN[buf[i]!] === 1) i++
  return i < n && buf[i] === 0x22 ? i + 1 : -1
}

// Reads a string whose escapes and UTF-8 sequences are whole in the chunk, checking them in place; at the
// first one the chunk cuts, or at the chunk's end, scanString takes over with the resumable state.
export function scanStringFast(st: JsonStream, buf: Uint8Array, i: number, n: number, from: number): number {
  for (;;) {
    while (i < n && PLAIN[buf[i]!] === 1) i++
    if (i === n) break
    const c = buf[i]!
    if (c === 0x22) {
      tokenBytes(st, buf, from, i + 1)
      endToken(st)
      return i + 1
    }
    if (c === 0x5c) {
      st.escaped = true
      if (i + 1 >= n) break
      const e = buf[i + 1]!
      if (ESCAPES[e] === 1) {
        i += 2
        continue
      }
      if (e !== 0x75 || i + 5 >= n) break
      if (HEX[buf[i + 2]!]! & HEX[buf[i + 3]!]! & HEX[buf[i + 4]!]! & HEX[buf[i + 5]!]!) {
        i += 6
        continue
      }
      break
    }
    const follow = FOLLOW[c]!
    if (follow === 0 || i + follow >= n) break
    const second = buf[i + 1]!
    if (second < LOW[c]! || second > HIGH[c]!) break
    if (follow > 1 && (!isContinuation(buf[i + 2]!) || (follow > 2 && !isContinuation(buf[i + 3]!)))) break
    st.adjust -= follow === 3 ? 2 : follow
    i += follow + 1
  }
  st.lex = L_STRING
  return scanString(st, buf, i, n, from)
}

// `i` is just past the opening quote, or 0 when resuming; `from` is where the token's bytes start in
// this chunk.
export function scanString(st: JsonStream, buf: Uint8Array, i: number, n: number, from: number): number {
  let lex = st.lex === L_NONE ? L_STRING : st.lex
  for (;;) {
    if (lex === L_STRING) {
      while (i < n && PLAIN[buf[i]!] === 1) i++
      if (i === n) break
      const c = buf[i]!
      if (c === 0x22) {
        st.lex = L_NONE
        tokenBytes(st, buf, from, i + 1)
        endToken(st)
        return i + 1
      }
      if (c === 0x5c) {
        st.escaped = true
        lex = L_ESCAPE
      } else if (c >= 0x80) {
        st.aux = beginSequence(st, c, st.base + i, false)
        if (st.aux < 0) throw badSequence(st)
        lex = L_UTF8
      } else {
        throw controlCharacter(st, st.base + i, c)
      }
      i++
    } else if (lex === L_ESCAPE) {
      if (i === n) break
      const c = buf[i]!
      if (c === 0x75) {
        st.aux = 0
        lex = L_HEX
      } else if (ESCAPES[c] === 1) {
        lex = L_STRING
      } else {
        throw jsonError(
          st,
          st.base + i,
          'Invalid escape: only \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX exist',
        )
      }
      i++
    } else if (lex === L_HEX) {
      while (st.aux < 4 && i < n) {
        if (HEX[buf[i]!] !== 1)
          throw jsonError(st, st.base + i, 'Invalid \\u escape: expected four hex digits')
        st.aux++
        i++
      }
      if (st.aux < 4) break
      lex = L_STRING
    } else {
      i = continueSequence(st, buf, i, n)
      if (st.aux > 0) break
      st.adjust += st.seqAdjust
      lex = L_STRING
    }
  }
  st.lex = lex
  tokenBytes(st, buf, from, n)
  return n
}

// At the end of the input inside a string.
export function unfinishedString(st: JsonStream): Error {
  if (st.lex === L_UTF8) return badSequence(st)
  return jsonError(st, st.base, `Unterminated string (opened at offset ${st.tokenUnits})`)
}
