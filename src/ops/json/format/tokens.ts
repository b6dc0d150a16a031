import { AppError } from '../../../errors.ts'

// Token kinds of the lossless JSON tokenizer. Colons and commas are implied by the structure and not stored.
export const OBJ_OPEN = 1
export const OBJ_CLOSE = 2
export const ARR_OPEN = 3
export const ARR_CLOSE = 4
export const KEY = 5
export const STRING = 6
export const NUMBER = 7
export const LITERAL = 8
// Added to KEY/STRING when the token holds a backslash escape, so plain keys are compared as they are.
export const ESCAPED = 0x10

// An object held back for sort_keys: its tokens' bytes (whitespace dropped) and, as a struct of arrays
// (no object per token), each token's kind, byte range in `bytes`, and for brackets the matching one.
export interface Capture {
  bytes: Buffer
  length: number
  count: number
  kind: Uint8Array
  start: Int32Array
  end: Int32Array
  link: Int32Array
  // open bracket tokens, innermost last
  open: Int32Array
  depth: number
}

export function createCapture(): Capture {
  const capacity = 1024
  return {
    bytes: Buffer.allocUnsafe(16 * 1024),
    length: 0,
    count: 0,
    kind: new Uint8Array(capacity),
    start: new Int32Array(capacity),
    end: new Int32Array(capacity),
    link: new Int32Array(capacity),
    open: new Int32Array(64),
    depth: 0,
  }
}

// sort_keys holds each outermost object in memory until it closes (its bytes, whitespace aside, and 13
// bytes a token); one that needs more is refused rather than let a streamed body fill the gateway's memory.
export const MAX_HELD_BYTES = 256 * 1024 * 1024
const TOKEN_BYTES = 13

function checkHeld(bytes: number, tokens: number): void {
  if (bytes + tokens * TOKEN_BYTES <= MAX_HELD_BYTES) return
  throw new AppError(
    'ERR_COMPUTE_LIMIT',
    `With sort_keys, each outermost object is held in memory until it closes; this one needs more than ${MAX_HELD_BYTES} bytes.`,
    { limit: 'sorted_object', max_bytes: MAX_HELD_BYTES },
  )
}

function doubledInt32(array: Int32Array): Int32Array {
  const bigger = new Int32Array(array.length * 2)
  bigger.set(array)
  return bigger
}

function growTokens(c: Capture): void {
  checkHeld(c.length, c.count * 2)
  const kind = new Uint8Array(c.kind.length * 2)
  kind.set(c.kind)
  c.kind = kind
  c.start = doubledInt32(c.start)
  c.end = doubledInt32(c.end)
  c.link = doubledInt32(c.link)
}

export function captureToken(c: Capture, kind: number): number {
  if (c.count === c.kind.length) growTokens(c)
  const index = c.count++
  c.kind[index] = kind
  c.start[index] = c.length
  c.end[index] = c.length
  return index
}

function ensureBytes(c: Capture, n: number): void {
  if (c.length + n <= c.bytes.length) return
  checkHeld(c.length + n, c.count)
  const bigger = Buffer.allocUnsafe(Math.max(c.length + n, c.bytes.length * 2))
  c.bytes.copy(bigger, 0, 0, c.length)
  c.bytes = bigger
}

export function captureBytes(c: Capture, src: Uint8Array, start: number, end: number): void {
  const n = end - start
  ensureBytes(c, n)
  const bytes = c.bytes
  // most tokens are short: a loop beats making a subarray for the native copy
  if (n <= 32) {
    let o = c.length
    for (let k = start; k < end; k++) bytes[o++] = src[k]!
  } else {
    bytes.set(src.subarray(start, end), c.length)
  }
  c.length += n
}

function captureBracket(c: Capture, kind: number, bracket: number): number {
  const index = captureToken(c, kind)
  ensureBytes(c, 1)
  c.bytes[c.length++] = bracket
  c.end[index] = c.length
  return index
}

export function captureEnd(c: Capture, index: number, kind: number): void {
  c.kind[index] = kind
  c.end[index] = c.length
}

export function captureOpen(c: Capture, kind: number, bracket: number): void {
  const index = captureBracket(c, kind, bracket)
  if (c.depth === c.open.length) c.open = doubledInt32(c.open)
  c.open[c.depth++] = index
}

export function captureClose(c: Capture, kind: number, bracket: number): void {
  const index = captureBracket(c, kind, bracket)
  const openIndex = c.open[--c.depth]!
  c.link[openIndex] = index
  c.link[index] = openIndex
}

export function resetCapture(c: Capture): void {
  c.length = 0
  c.count = 0
  c.depth = 0
}

// Index of the last token of the value that starts at `index`.
export function valueEnd(c: Capture, index: number): number {
  const kind = c.kind[index]
  return kind === OBJ_OPEN || kind === ARR_OPEN ? c.link[index]! : index
}
