import { AppError } from '../../errors.ts'
import { type ByteScanner, describeChar, invalidText, isAsciiSpace } from './shared.ts'

// Two base-85 encodings of 4-byte groups as 5 characters (big-endian), differing in alphabet and in what
// they do with a final partial group:
// - Ascii85 (btoa, Adobe; Python's base64.a85encode): '!'..'u', 'z' for a group of four zero bytes, a final
//   group of n bytes written as n + 1 characters. Lenient decoding also takes whitespace and Adobe's
//   '<~' '~>' around the text.
// - Z85 (ZeroMQ RFC 32): its own alphabet, whole groups only: the bytes must be a multiple of 4 long, the
//   text a multiple of 5 (the spec's "SHALL"), refused otherwise.

const Z85_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#'
const Z85_LETTERS = Buffer.from(Z85_ALPHABET, 'latin1')
const Z85_VALUES = new Int8Array(128).fill(-1)
for (let v = 0; v < 85; v++) Z85_VALUES[Z85_ALPHABET.charCodeAt(v)] = v

const BANG = 0x21
const U = 0x75
const Z = 0x7a
const MAX_GROUP = 0xffffffff

// the 5 digits of a 32-bit group, most significant first
function digitsOf(value: number, out: Buffer, at: number, letters: (d: number) => number): void {
  for (let k = 4; k >= 0; k--) {
    out[at + k] = letters(value % 85)
    value = Math.floor(value / 85)
  }
}

function group(bytes: Uint8Array, i: number): number {
  return ((bytes[i]! << 24) | (bytes[i + 1]! << 16) | (bytes[i + 2]! << 8) | bytes[i + 3]!) >>> 0
}

const ascii = (d: number) => d + BANG

export function encodeAscii85(bytes: Uint8Array): string {
  const whole = bytes.length - (bytes.length % 4)
  const out = Buffer.alloc(Math.ceil(bytes.length / 4) * 5)
  let o = 0
  for (let i = 0; i < whole; i += 4) {
    const v = group(bytes, i)
    if (v === 0) out[o++] = Z
    else {
      digitsOf(v, out, o, ascii)
      o += 5
    }
  }
  const rest = bytes.length - whole
  if (rest > 0) {
    const last = new Uint8Array(4)
    last.set(bytes.subarray(whole))
    digitsOf(group(last, 0), out, o, ascii)
    o += rest + 1
  }
  return out.toString('latin1', 0, o)
}

function fail(format: string, position: number, message: string): never {
  throw invalidText(format, position, message)
}

// The value of 5 digits; one past 2^32 - 1 ("s8W-!" in Ascii85, "%nSc0" in Z85) is refused at its last.
function groupValue(format: string, digits: number[], last: number): number {
  let v = 0
  for (const d of digits) v = v * 85 + d
  if (v > MAX_GROUP) fail(format, last, 'This group of 5 characters is larger than 4 bytes can hold')
  return v
}

function emitGroup(v: number, count: number, at: number, emit: (byte: number, position: number) => void) {
  for (let k = 0; k < count; k++) emit((v >>> (24 - 8 * k)) & 0xff, at)
}

// Where the text starts and ends: lenient decoding drops whitespace and Adobe's "<~" "~>" around it.
function ascii85Span(input: string, strict: boolean): [number, number] {
  if (strict) return [0, input.length]
  let from = 0
  let to = input.length
  while (from < to && isAsciiSpace(input.charCodeAt(from))) from++
  while (to > from && isAsciiSpace(input.charCodeAt(to - 1))) to--
  if (input.startsWith('<~', from)) from += 2
  if (to - from >= 2 && input.endsWith('~>', to)) to -= 2
  return [from, to]
}

export function ascii85Scanner(strict: boolean): ByteScanner {
  return function scanAscii85(input, emit) {
    const [from, to] = ascii85Span(input, strict)
    const digits: number[] = []
    let start = -1
    let last = -1
    for (let i = from; i < to; i++) {
      const c = input.charCodeAt(i)
      if (isAsciiSpace(c)) {
        if (strict) fail('ascii85', i, `${describeChar(c)} is not allowed in strict mode`)
        continue
      }
      if (c === Z) {
        if (digits.length > 0) fail('ascii85', i, "'z' (four zero bytes) inside a group of 5 characters")
        emitGroup(0, 4, i, emit)
        continue
      }
      if (c < BANG || c > U) fail('ascii85', i, `Invalid ascii85 character ${describeChar(c)}`)
      if (digits.length === 0) start = i
      digits.push(c - BANG)
      last = i
      if (digits.length === 5) {
        const v = groupValue('ascii85', digits, i)
        if (strict && v === 0)
          fail('ascii85', start, "Non-canonical encoding: four zero bytes are written 'z'")
        emitGroup(v, 4, i, emit)
        digits.length = 0
      }
    }
    const n = digits.length
    if (n === 0) return
    if (n === 1) fail('ascii85', last, 'A single character left over at the end cannot encode a byte')
    // a final group of n characters is n - 1 bytes: padded with the highest digit, as the encoder's zeros
    // are rounded up, then cut
    const padded = [...digits, ...Array<number>(5 - n).fill(84)]
    const v = groupValue('ascii85', padded, last)
    if (strict) {
      const canonical = Buffer.alloc(5)
      digitsOf(((v >>> (8 * (5 - n))) << (8 * (5 - n))) >>> 0, canonical, 0, ascii)
      for (let k = 0; k < n; k++) {
        if (canonical[k] !== digits[k]! + BANG) {
          fail('ascii85', last, 'Non-canonical encoding: the last group is not what its bytes encode to')
        }
      }
    }
    emitGroup(v, n - 1, last, emit)
  }
}

export function encodeZ85(bytes: Uint8Array): string {
  const rest = bytes.length % 4
  if (rest !== 0) {
    throw new AppError(
      'ERR_INVALID_ENCODING',
      `Z85 encodes whole groups of 4 bytes; these ${bytes.length} bytes leave ${rest} over (ZeroMQ RFC 32)`,
      { format: 'z85', position: bytes.length - rest },
    )
  }
  const out = Buffer.alloc((bytes.length / 4) * 5)
  for (let i = 0; i < bytes.length; i += 4)
    digitsOf(group(bytes, i), out, (i / 4) * 5, (d) => Z85_LETTERS[d]!)
  return out.toString('latin1')
}

export function z85Scanner(strict: boolean): ByteScanner {
  return function scanZ85(input, emit) {
    const digits: number[] = []
    let last = -1
    for (let i = 0; i < input.length; i++) {
      const c = input.charCodeAt(i)
      if (isAsciiSpace(c)) {
        if (strict) fail('z85', i, `${describeChar(c)} is not allowed in strict mode`)
        continue
      }
      const d = c < 128 ? Z85_VALUES[c]! : -1
      if (d < 0) fail('z85', i, `Invalid z85 character ${describeChar(c)}`)
      digits.push(d)
      last = i
      if (digits.length === 5) {
        emitGroup(groupValue('z85', digits, i), 4, i, emit)
        digits.length = 0
      }
    }
    if (digits.length > 0) {
      fail('z85', last, `Z85 text comes in groups of 5 characters; ${digits.length} are left over at the end`)
    }
  }
}
