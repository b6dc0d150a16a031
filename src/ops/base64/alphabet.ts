import { AppError } from '../../errors.ts'
import type { Base64Decoder, Base64Variant } from './types.ts'

// The two RFC 4648 alphabets, and how the decoder words its refusals.

const PLUS = 0x2b
const SLASH = 0x2f
const MINUS = 0x2d
const UNDERSCORE = 0x5f
export const EQUALS = 0x3d

// Sextet value of each byte in either alphabet, -1 elsewhere.
export const VALUES = new Int8Array(256).fill(-1)
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'.split('').forEach((ch, i) => {
  VALUES[ch.charCodeAt(0)] = i
})
VALUES[PLUS] = 62
VALUES[SLASH] = 63
VALUES[MINUS] = 62
VALUES[UNDERSCORE] = 63

// WHATWG ASCII whitespace: what forgiving-base64 and MIME line wrapping put between characters.
export function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d
}

export function fail(position: number, message: string): never {
  throw new AppError('ERR_INVALID_BASE64', `Position ${position}: ${message}`, { position })
}

export function describe(c: number): string {
  const hex = `U+${c.toString(16).toUpperCase().padStart(4, '0')}`
  return c > 0x20 && c < 0x7f ? `'${String.fromCharCode(c)}' (${hex})` : hex
}

const ALPHABET: Record<Base64Variant, string> = { standard: 'standard base64', url: 'base64url' }

// A '+/' or '-_' character: a mix of the two alphabets (or a character of the other alphabet than the
// one asked for) is refused where it occurs.
export function checkAlphabet(d: Base64Decoder, c: number, i: number): void {
  const own: Base64Variant = c === MINUS || c === UNDERSCORE ? 'url' : 'standard'
  const other: Base64Variant = own === 'url' ? 'standard' : 'url'
  if (d.variant === other) {
    fail(i, `${describe(c)} belongs to the ${ALPHABET[own]} alphabet; use variant "${own}" or "auto"`)
  }
  const otherAt = own === 'url' ? d.standardAt : d.urlAt
  if (otherAt >= 0) {
    const earlier = `'${String.fromCharCode(own === 'url' ? d.standardChar : d.urlChar)}' at position ${otherAt}`
    fail(i, `${describe(c)} mixes the ${ALPHABET[own]} alphabet with the ${ALPHABET[other]} ${earlier}`)
  }
  if (own === 'url' && d.urlAt < 0) {
    d.urlAt = i
    d.urlChar = c
  } else if (own === 'standard' && d.standardAt < 0) {
    d.standardAt = i
    d.standardChar = c
  }
}

// An input with neither '+/' nor '-_' fits both alphabets: it is called url when it lacks the padding
// the standard alphabet requires (then strict mode accepts it as canonical base64url), standard otherwise.
export function detectVariant(d: Base64Decoder, unpadded: boolean): Base64Variant {
  if (d.urlAt >= 0) return 'url'
  if (d.standardAt >= 0) return 'standard'
  return unpadded ? 'url' : 'standard'
}
