import {
  type ByteScanner,
  decodeScannedUtf8,
  hexValue,
  invalidText,
  isHexDigit,
  requireWellFormed,
} from './shared.ts'

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d
}

function utf8Of(input: string, format: string): Buffer {
  requireWellFormed(input, format)
  return Buffer.from(input, 'utf8')
}

export function encodeHex(input: string): string {
  return utf8Of(input, 'hex').toString('hex')
}

// Hex digit pairs in either case; whitespace anywhere is ignored (as `xxd -r -p` does).
const scanHex: ByteScanner = function scanHex(input, emit) {
  let pending = -1
  for (let i = 0; i < input.length; i++) {
    const c = input.charCodeAt(i)
    if (isSpace(c)) continue
    if (!isHexDigit(c)) throw invalidText('hex', i, 'Not a hex digit')
    if (pending < 0) {
      pending = i
      continue
    }
    emit(hexValue(input.charCodeAt(pending)) * 16 + hexValue(c), pending)
    pending = -1
  }
  if (pending >= 0) throw invalidText('hex', pending, 'Odd number of hex digits: this one has no partner')
}

export function decodeHex(input: string): string {
  return decodeScannedUtf8(input, 'hex', scanHex)
}

const BITS = Array.from({ length: 256 }, (_, b) => b.toString(2).padStart(8, '0'))

export function encodeBinary(input: string): string {
  return Array.from(utf8Of(input, 'binary'), (b) => BITS[b]!).join(' ')
}

// Groups of bits separated by whitespace. A group of 1–8 bits is one byte (so the 7-bit groups some tools
// print for ASCII work); a longer group must hold whole bytes, 8 bits each.
const scanBinary: ByteScanner = function scanBinary(input, emit) {
  let i = 0
  while (i < input.length) {
    if (isSpace(input.charCodeAt(i))) {
      i++
      continue
    }
    const start = i
    while (i < input.length && !isSpace(input.charCodeAt(i))) {
      const c = input.charCodeAt(i)
      if (c !== 0x30 && c !== 0x31) throw invalidText('binary', i, "Only '0', '1' and whitespace are allowed")
      i++
    }
    const length = i - start
    if (length > 8 && length % 8 !== 0) {
      throw invalidText('binary', start, `A group of ${length} bits is not a whole number of bytes`)
    }
    for (let at = start; at < i; at += 8) emit(Number.parseInt(input.slice(at, Math.min(at + 8, i)), 2), at)
  }
}

export function decodeBinary(input: string): string {
  return decodeScannedUtf8(input, 'binary', scanBinary)
}
