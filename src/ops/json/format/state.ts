import { createKeyScopes, type KeyScopes } from './duplicates.ts'
import type { Position } from './errors.ts'
import { createPrinter, type Printer } from './printer.ts'
import { type Capture, createCapture } from './tokens.ts'

// What the grammar allows next.
export const S_VALUE = 0
export const S_VALUE_OR_CLOSE = 1
export const S_KEY = 2
export const S_KEY_OR_CLOSE = 3
export const S_COLON = 4
export const S_AFTER_VALUE = 5
export const S_END = 6

// The token being read when a chunk ended inside it (L_NONE between tokens).
export const L_NONE = 0
export const L_STRING = 1
export const L_ESCAPE = 2
export const L_HEX = 3
export const L_UTF8 = 4
export const L_NUMBER = 5
export const L_LITERAL = 6
// a non-ASCII character where none may stand: its bytes are gathered to name it in the error
export const L_STRAY = 7

// Pretty output of deep nesting may be far larger than its input: streamed, it goes out in pieces.
const PIECE_BYTES = 256 * 1024

// The stack of open containers takes a byte per level; deeper input is refused rather than let it grow
// with the body (a gigabyte of '[').
export const MAX_DEPTH = 1 << 24

// Listing every duplicate of a hostile document would make the answer larger than the input.
export const MAX_LISTED_DUPLICATES = 100

export interface DuplicateKey {
  key: string
  line: number
  column: number
  offset: number
}

// The whole state of one formatting run, as plain data: the input may come in any number of chunks,
// split anywhere (inside a string, an escape, a UTF-8 sequence, a number or a literal).
export interface JsonStream extends Position {
  // `input` text (WTF-8): its lone surrogates are refused as such
  text: boolean
  state: number
  // kind of each open container (OBJ_OPEN or ARR_OPEN), innermost last
  stack: Uint8Array
  depth: number
  started: boolean
  lex: number
  // lexer detail: hex digits read, number state, literal position, UTF-8 bytes still expected
  aux: number
  // the current token: its kind, where it starts (byte offset and UTF-16 offset), whether it has escapes
  kind: number
  tokenStart: number
  tokenUnits: number
  escaped: boolean
  literal: Uint8Array
  // the UTF-8 sequence being read: first byte, its offset, bounds of the next byte, UTF-16 adjustment
  seqLead: number
  seqStart: number
  seqLow: number
  seqHigh: number
  seqAdjust: number
  codePoint: number
  // what the grammar expected where a stray character stands
  expected: string
  printer: Printer
  // the output is kept whole in memory (one-shot, or a JSON answer), which bounds its cap
  buffered: boolean
  // streamed pretty output is handed over in pieces of about this size (see feed)
  pieceBytes: number
  // minify prints the input less its whitespace: unbroken runs of it are copied whole, from runStart
  // in the current chunk (-1 while tokens are printed one by one: pretty, or an object held for sorting)
  minify: boolean
  runStart: number
  sortKeys: boolean
  capture: Capture | null
  captureToken: number
  keys: KeyScopes | null
  bom: boolean
  duplicates: DuplicateKey[]
  duplicateCount: number
}

export interface StreamSetup {
  text: boolean
  raw: boolean
  pretty: boolean
  indent: number | '\t'
  sortKeys: boolean
  warnings: boolean
  buffered: boolean
  maxBytes: number
  capacity: number
}

export function createStreamState(setup: StreamSetup): JsonStream {
  return {
    base: 0,
    adjust: 0,
    line: 1,
    lineStart: 0,
    raw: setup.raw,
    text: setup.text,
    state: S_VALUE,
    stack: new Uint8Array(64),
    depth: 0,
    started: false,
    lex: L_NONE,
    aux: 0,
    kind: 0,
    tokenStart: 0,
    tokenUnits: 0,
    escaped: false,
    literal: new Uint8Array(0),
    seqLead: 0,
    seqStart: 0,
    seqLow: 0,
    seqHigh: 0,
    seqAdjust: 0,
    codePoint: 0,
    expected: '',
    printer: createPrinter({
      pretty: setup.pretty,
      indent: setup.indent,
      maxBytes: setup.maxBytes,
      capacity: setup.capacity,
    }),
    buffered: setup.buffered,
    pieceBytes: setup.buffered || !setup.pretty ? Number.POSITIVE_INFINITY : PIECE_BYTES,
    minify: !setup.pretty,
    runStart: setup.pretty ? -1 : 0,
    sortKeys: setup.sortKeys,
    capture: setup.sortKeys ? createCapture() : null,
    captureToken: -1,
    keys: setup.warnings ? createKeyScopes() : null,
    bom: false,
    duplicates: [],
    duplicateCount: 0,
  }
}
