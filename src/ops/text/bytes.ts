import { type ByteScanner, hexValue, invalidText, isHexDigit, isAsciiSpace as isSpace } from './shared.ts'

// Hex digit pairs in either case; whitespace anywhere is ignored (as `xxd -r -p` does).
export const scanHex: ByteScanner = function scanHex(input, emit) {
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

const BITS = Array.from({ length: 256 }, (_, b) => b.toString(2).padStart(8, '0'))

export function encodeHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}

export function encodeBinary(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => BITS[b]!).join(' ')
}

// Groups of bits separated by whitespace. A group of 1–8 bits is one byte (so the 7-bit groups some tools
// print for ASCII work); a longer group must hold whole bytes, 8 bits each.
export const scanBinary: ByteScanner = function scanBinary(input, emit) {
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
