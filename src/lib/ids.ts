import { randomBytes } from 'node:crypto'

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

// Most significant digit first, left-padded with '0' to `width`.
export function toBase62(value: number, width: number): string {
  let n = value
  let out = ''
  while (n > 0) {
    out = BASE62[n % 62] + out
    n = Math.floor(n / 62)
  }
  return out.padStart(width, '0')
}

// Uniform base62 characters: bytes >= 248 (4 × 62) are rejected so no character is favoured.
export function randomBase62(length: number): string {
  let out = ''
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62]
      if (out.length === length) break
    }
  }
  return out
}
