import { AppError } from '../../../errors.ts'

// Writes tokens back out with new whitespace, as UTF-8 bytes into one growing buffer. Token bytes are
// copied from the input as written, so numbers and string escapes are exactly what the client sent;
// only the separators and indentation are made here.
export interface Printer {
  out: Buffer
  // bytes written to `out`
  length: number
  // bytes already handed over by takePrinted (streaming)
  taken: number
  // output cap in bytes; raised by the stream as input arrives
  max: number
  // past the cap: nothing more is written (tokenizing goes on so that validation can finish: an invalid
  // document is a 400 whatever its size), and the cap is reported when the output is asked for
  overflow: boolean
  pretty: boolean
  // indentation byte (space or tab) and how many per level
  unit: number
  width: number
  depth: number
  afterOpen: boolean
  afterKey: boolean
}

export interface PrintStyle {
  pretty: boolean
  indent: number | '\t'
  maxBytes: number
  // first buffer size; it doubles as needed
  capacity: number
}

const NEWLINE = 0x0a
const COMMA = 0x2c
const COLON = 0x3a
const SPACE = 0x20
// Below this many bytes a JS loop beats the native copy (whose call costs more than the copy).
const SHORT_COPY = 32

export function createPrinter(style: PrintStyle): Printer {
  return {
    out: Buffer.allocUnsafe(Math.max(64, style.capacity)),
    length: 0,
    taken: 0,
    max: style.maxBytes,
    overflow: false,
    pretty: style.pretty,
    unit: style.indent === '\t' ? 0x09 : SPACE,
    width: style.indent === '\t' ? 1 : style.indent,
    depth: 0,
    afterOpen: false,
    afterKey: false,
  }
}

export function outputTooLarge(max: number): AppError {
  return new AppError(
    'ERR_COMPUTE_LIMIT',
    `The formatted output would exceed ${max} bytes; use mode "minify" or a smaller indent.`,
    { reason: 'output_size', limit: max, max_bytes: max },
  )
}

// Makes room for n more bytes; false past the cap. The cap is checked whenever the buffer grows, so a
// runaway pretty print stops within one doubling, and from then on nothing is written (or allocated).
function room(p: Printer, n: number): boolean {
  const needed = p.length + n
  if (p.overflow || p.taken + needed > p.max) {
    p.overflow = true
    p.length = 0
    return false
  }
  const bigger = Buffer.allocUnsafe(Math.max(needed, Math.min(p.out.length * 2, p.max - p.taken)))
  p.out.copy(bigger, 0, 0, p.length)
  p.out = bigger
  return true
}

function newline(p: Printer, depth: number): void {
  // past the budget indentation is not even counted: deep nesting would cost depth × width per token
  if (p.overflow) return
  const n = depth * p.width + 1
  if (p.length + n > p.out.length && !room(p, n)) return
  const out = p.out
  let o = p.length
  out[o++] = NEWLINE
  if (n <= SHORT_COPY) {
    for (let k = 1; k < n; k++) out[o++] = p.unit
  } else {
    out.fill(p.unit, o, o + n - 1)
    o += n - 1
  }
  p.length = o
}

function writeByte(p: Printer, c: number): void {
  if (p.length === p.out.length && !room(p, 1)) return
  p.out[p.length++] = c
}

// What goes before a key, a value or an opening bracket: a colon after a key, else a comma between
// members, and in pretty mode a line break and indentation.
function separate(p: Printer): void {
  if (p.afterKey) {
    writeByte(p, COLON)
    if (p.pretty) writeByte(p, SPACE)
  } else if (p.afterOpen) {
    if (p.pretty) newline(p, p.depth)
  } else if (p.depth > 0) {
    writeByte(p, COMMA)
    if (p.pretty) newline(p, p.depth)
  }
}

export function printOpen(p: Printer, bracket: number): void {
  separate(p)
  writeByte(p, bracket)
  p.depth++
  p.afterOpen = true
  p.afterKey = false
}

// Empty containers stay on one line: `[]`, `{}`.
export function printClose(p: Printer, bracket: number): void {
  p.depth--
  if (p.pretty && !p.afterOpen) newline(p, p.depth)
  writeByte(p, bracket)
  p.afterOpen = false
  p.afterKey = false
}

// Starts a key, string, number or literal; its bytes follow through printBytes (in pieces when the
// token spans input chunks).
export function printValueStart(p: Printer, isKey: boolean): void {
  separate(p)
  p.afterOpen = false
  p.afterKey = isKey
}

export function printBytes(p: Printer, src: Uint8Array, start: number, end: number): void {
  if (p.overflow) return
  const n = end - start
  if (p.length + n > p.out.length && !room(p, n)) return
  const out = p.out
  if (n <= SHORT_COPY) {
    let o = p.length
    for (let k = start; k < end; k++) out[o++] = src[k]!
    p.length = o
  } else {
    out.set(src.subarray(start, end), p.length)
    p.length += n
  }
}

export function checkOutput(p: Printer): void {
  if (p.overflow || p.taken + p.length > p.max) throw outputTooLarge(p.max)
}

// Hands a copy of the bytes printed so far to the caller and empties the buffer for the next chunk
// (a copy costs far less than the tokenizing that made the bytes, and the buffer is then reused).
export function takePrinted(p: Printer): Buffer {
  checkOutput(p)
  const printed = Buffer.allocUnsafe(p.length)
  p.out.copy(printed, 0, 0, p.length)
  p.taken += p.length
  p.length = 0
  return printed
}

// The whole output of a one-shot run.
export function printed(p: Printer): Buffer {
  checkOutput(p)
  return p.out.subarray(0, p.length)
}
