import { type Printer, printBytes, printClose, printOpen, printValueStart } from './printer.ts'
import { decodeKey } from './text.ts'
import { ARR_CLOSE, ARR_OPEN, type Capture, ESCAPED, KEY, OBJ_CLOSE, OBJ_OPEN, valueEnd } from './tokens.ts'

// Decoded keys of the held object: plain keys are their bytes between the quotes; escaped ones are
// decoded (WTF-8) into `bytes`. WTF-8 byte order is code point order, which is what sort_keys promises
// (JavaScript's default sort compares UTF-16 units and puts U+10000 and above before U+E000–U+FFFF).
interface DecodedKeys {
  bytes: Buffer
  length: number
  start: Int32Array
  end: Int32Array
}

function decodedKeys(c: Capture): DecodedKeys {
  const keys: DecodedKeys = {
    bytes: Buffer.allocUnsafe(0),
    length: 0,
    start: new Int32Array(c.count),
    end: new Int32Array(c.count),
  }
  let escapedBytes = 0
  for (let t = 0; t < c.count; t++) if (c.kind[t] === (KEY | ESCAPED)) escapedBytes += c.end[t]! - c.start[t]!
  keys.bytes = Buffer.allocUnsafe(escapedBytes)
  for (let t = 0; t < c.count; t++) {
    const kind = c.kind[t]!
    if ((kind & 0x0f) !== KEY) continue
    if (kind === KEY) {
      keys.start[t] = c.start[t]! + 1
      keys.end[t] = c.end[t]! - 1
      continue
    }
    const from = keys.length
    c.bytes.copy(keys.bytes, from, c.start[t]! + 1, c.end[t]! - 1)
    keys.start[t] = from
    keys.end[t] = decodeKey(keys.bytes, from, from + c.end[t]! - c.start[t]! - 2)
    keys.length = keys.end[t]!
  }
  return keys
}

function compareKeys(c: Capture, keys: DecodedKeys, a: number, b: number): number {
  const x = c.kind[a] === KEY ? c.bytes : keys.bytes
  const y = c.kind[b] === KEY ? c.bytes : keys.bytes
  let i = keys.start[a]!
  let j = keys.start[b]!
  const iEnd = keys.end[a]!
  const jEnd = keys.end[b]!
  while (i < iEnd && j < jEnd) {
    const d = x[i++]! - y[j++]!
    if (d !== 0) return d
  }
  return iEnd - i - (jEnd - j)
}

// Key tokens of one object in key order; Array.prototype.sort is stable, so duplicates keep their order.
function sortedMembers(c: Capture, keys: DecodedKeys, open: number): number[] {
  const close = c.link[open]!
  const members: number[] = []
  for (let k = open + 1; k < close; k = valueEnd(c, k + 1) + 1) members.push(k)
  if (members.length > 1) members.sort((a, b) => compareKeys(c, keys, a, b))
  return members
}

function printToken(p: Printer, c: Capture, t: number): void {
  const kind = c.kind[t]! & 0x0f
  const bracket = c.bytes[c.start[t]!]!
  if (kind === OBJ_OPEN || kind === ARR_OPEN) printOpen(p, bracket)
  else if (kind === OBJ_CLOSE || kind === ARR_CLOSE) printClose(p, bracket)
  else {
    printValueStart(p, kind === KEY)
    printBytes(p, c.bytes, c.start[t]!, c.end[t]!)
  }
}

interface Frame {
  // sorted key tokens for an object; null for an array, whose values are walked in place
  members: number[] | null
  pos: number
  close: number
}

// Prints a held object with every object's members sorted, walking an explicit stack of frames
// instead of recursing, so depth never threatens the call stack.
export function printSorted(p: Printer, c: Capture): void {
  const keys = decodedKeys(c)
  const stack: Frame[] = []
  let next = 0
  for (;;) {
    if (next >= 0) {
      printToken(p, c, next)
      const kind = c.kind[next]
      if (kind === ARR_OPEN) stack.push({ members: null, pos: next + 1, close: c.link[next]! })
      else if (kind === OBJ_OPEN) {
        stack.push({ members: sortedMembers(c, keys, next), pos: 0, close: c.link[next]! })
      }
      next = -1
    }
    const top = stack[stack.length - 1]
    if (top === undefined) return
    if (top.members === null ? top.pos === top.close : top.pos === top.members.length) {
      printToken(p, c, top.close)
      stack.pop()
    } else if (top.members === null) {
      next = top.pos
      top.pos = valueEnd(c, next) + 1
    } else {
      const key = top.members[top.pos++]!
      printToken(p, c, key)
      next = key + 1
    }
  }
}
