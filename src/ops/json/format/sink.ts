import { AppError } from '../../../errors.ts'
import { beginKey, closeScope, endKey, keyBytes, openScope } from './duplicates.ts'
import { printSorted } from './key-order.ts'
import { printBytes, printClose, printOpen, printValueStart } from './printer.ts'
import {
  type JsonStream,
  MAX_DEPTH,
  MAX_LISTED_DUPLICATES,
  S_AFTER_VALUE,
  S_COLON,
  S_END,
  S_KEY_OR_CLOSE,
  S_VALUE_OR_CLOSE,
} from './state.ts'
import {
  ARR_CLOSE,
  ARR_OPEN,
  type Capture,
  captureBytes,
  captureClose,
  captureEnd,
  captureOpen,
  captureToken,
  ESCAPED,
  KEY,
  OBJ_CLOSE,
  OBJ_OPEN,
  resetCapture,
} from './tokens.ts'

// The token sink: tokens go to the printer, or into the capture while an object is held for sort_keys.
export function beginToken(st: JsonStream, kind: number, at: number): void {
  st.kind = kind
  st.tokenStart = st.base + at
  st.tokenUnits = st.tokenStart + st.adjust
  st.escaped = false
  st.started = true
  const capture = st.capture
  if (capture !== null && capture.depth > 0) st.captureToken = captureToken(capture, kind)
  else if (st.runStart < 0) printValueStart(st.printer, kind === KEY)
  if (kind === KEY && st.keys !== null) beginKey(st.keys)
}

export function tokenBytes(st: JsonStream, src: Uint8Array, start: number, end: number): void {
  const capture = st.capture
  if (capture !== null && capture.depth > 0) captureBytes(capture, src, start, end)
  else if (st.runStart < 0) printBytes(st.printer, src, start, end)
  if (st.kind === KEY && st.keys !== null) keyBytes(st.keys, src, start, end)
}

// A token whole in the chunk: the same as beginToken, tokenBytes and endToken, in one step.
export function wholeToken(st: JsonStream, kind: number, buf: Uint8Array, start: number, end: number): void {
  const capture = st.capture
  if (capture !== null && capture.depth > 0) {
    beginToken(st, kind, start)
    tokenBytes(st, buf, start, end)
    endToken(st)
    return
  }
  st.started = true
  if (st.runStart < 0) {
    printValueStart(st.printer, kind === KEY)
    printBytes(st.printer, buf, start, end)
  }
  if (kind !== KEY) {
    st.state = st.depth === 0 ? S_END : S_AFTER_VALUE
    return
  }
  const keys = st.keys
  if (keys !== null) {
    beginKey(keys)
    keyBytes(keys, buf, start, end)
    const duplicate = endKey(keys, false)
    if (duplicate !== null) {
      st.tokenUnits = st.base + start + st.adjust
      recordDuplicate(st, duplicate)
    }
  }
  st.state = S_COLON
}

function recordDuplicate(st: JsonStream, key: string): void {
  st.duplicateCount++
  if (st.duplicates.length === MAX_LISTED_DUPLICATES) return
  const offset = st.tokenUnits
  // a key never spans lines, so the line is still the one it started on
  st.duplicates.push({ key, line: st.line, column: offset - st.lineStart + 1, offset })
}

export function endToken(st: JsonStream): void {
  const kind = st.kind
  const capture = st.capture
  if (capture !== null && capture.depth > 0) {
    captureEnd(capture, st.captureToken, st.escaped ? kind | ESCAPED : kind)
  }
  if (kind === KEY) {
    if (st.keys !== null) {
      const duplicate = endKey(st.keys, st.escaped)
      if (duplicate !== null) recordDuplicate(st, duplicate)
    }
    st.state = S_COLON
  } else {
    st.state = st.depth === 0 ? S_END : S_AFTER_VALUE
  }
}

// Copies the pending run of the chunk, up to `end`.
export function flushRun(st: JsonStream, buf: Uint8Array, end: number): void {
  if (end > st.runStart) printBytes(st.printer, buf, st.runStart, end)
}

export function openContainer(st: JsonStream, buf: Uint8Array, at: number): void {
  const bracket = buf[at]!
  const kind = bracket === 0x7b ? OBJ_OPEN : ARR_OPEN
  if (st.depth === MAX_DEPTH) {
    throw new AppError('ERR_COMPUTE_LIMIT', `The JSON text nests deeper than ${MAX_DEPTH} levels.`, {
      limit: 'depth',
      max_depth: MAX_DEPTH,
    })
  }
  if (st.depth === st.stack.length) {
    const bigger = new Uint8Array(st.stack.length * 2)
    bigger.set(st.stack)
    st.stack = bigger
  }
  st.stack[st.depth++] = kind
  st.started = true
  const capture = st.capture
  // sort_keys holds each outermost object back until it closes
  if (capture !== null && (capture.depth > 0 || kind === OBJ_OPEN)) {
    if (st.runStart >= 0) {
      flushRun(st, buf, at)
      st.runStart = -1
    }
    captureOpen(capture, kind, bracket)
  } else if (st.runStart < 0) {
    printOpen(st.printer, bracket)
  }
  if (kind === OBJ_OPEN) {
    if (st.keys !== null) openScope(st.keys)
    st.state = S_KEY_OR_CLOSE
  } else {
    st.state = S_VALUE_OR_CLOSE
  }
}

function printHeld(st: JsonStream, capture: Capture, at: number): void {
  const p = st.printer
  if (st.minify) {
    // the separator before the object was copied with the input; the printer starts from scratch
    p.depth = 0
    p.afterOpen = true
    p.afterKey = false
  }
  printSorted(p, capture)
  resetCapture(capture)
  if (st.minify) st.runStart = at + 1
}

export function closeContainer(st: JsonStream, buf: Uint8Array, at: number): void {
  const bracket = buf[at]!
  const kind = st.stack[--st.depth] === OBJ_OPEN ? OBJ_CLOSE : ARR_CLOSE
  const capture = st.capture
  if (capture !== null && capture.depth > 0) {
    captureClose(capture, kind, bracket)
    if (capture.depth === 0) printHeld(st, capture, at)
  } else if (st.runStart < 0) {
    printClose(st.printer, bracket)
  }
  if (kind === OBJ_CLOSE && st.keys !== null) closeScope(st.keys)
  st.state = st.depth === 0 ? S_END : S_AFTER_VALUE
}
