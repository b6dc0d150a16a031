import { AppError } from '../errors.ts'

export const BASE64_VARIANTS = ['standard', 'url'] as const
export type Base64Variant = (typeof BASE64_VARIANTS)[number]
export const DECODE_VARIANTS = ['auto', ...BASE64_VARIANTS] as const
export type DecodeVariant = (typeof DECODE_VARIANTS)[number]

export interface DecodedBase64 {
  bytes: Buffer
  variant: Base64Variant
}

const PLUS = 0x2b
const SLASH = 0x2f
const MINUS = 0x2d
const UNDERSCORE = 0x5f
const EQUALS = 0x3d

// Sextet value of each ASCII character in either alphabet, -1 elsewhere.
const VALUES = new Int8Array(128).fill(-1)
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'.split('').forEach((ch, i) => {
  VALUES[ch.charCodeAt(0)] = i
})
VALUES[PLUS] = 62
VALUES[SLASH] = 63
VALUES[MINUS] = 62
VALUES[UNDERSCORE] = 63

// WHATWG ASCII whitespace: what forgiving-base64 and MIME line wrapping put between characters.
function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d
}

function fail(position: number, message: string): never {
  throw new AppError('ERR_INVALID_BASE64', `Position ${position}: ${message}`, { position })
}

function describeChar(text: string, i: number): string {
  const c = text.charCodeAt(i)
  const hex = `U+${c.toString(16).toUpperCase().padStart(4, '0')}`
  return c > 0x20 && c < 0x7f ? `'${text[i]}' (${hex})` : hex
}

const ALPHABET: Record<Base64Variant, string> = { standard: 'standard base64', url: 'base64url' }

// Remembers where each alphabet's own characters were first seen, so a mix of '+/' and '-_' (or a
// character of the other alphabet than the one asked for) is refused where it occurs.
function checkAlphabet(text: string, i: number, variant: DecodeVariant, seen: Record<Base64Variant, number>) {
  const c = text.charCodeAt(i)
  const own: Base64Variant | undefined =
    c === MINUS || c === UNDERSCORE ? 'url' : c === PLUS || c === SLASH ? 'standard' : undefined
  if (own === undefined) return
  const other: Base64Variant = own === 'url' ? 'standard' : 'url'
  const what = describeChar(text, i)
  if (variant === other)
    fail(i, `${what} belongs to the ${ALPHABET[own]} alphabet; use variant "${own}" or "auto"`)
  if (seen[other] >= 0) {
    const earlier = `'${text[seen[other]]}' at position ${seen[other]}`
    fail(i, `${what} mixes the ${ALPHABET[own]} alphabet with the ${ALPHABET[other]} ${earlier}`)
  }
  if (seen[own] < 0) seen[own] = i
}

// An input with neither '+/' nor '-_' fits both alphabets: it is called url when it lacks the padding
// the standard alphabet requires (then strict mode accepts it as canonical base64url), standard otherwise.
function detectVariant(seen: Record<Base64Variant, number>, unpadded: boolean): Base64Variant {
  if (seen.url >= 0) return 'url'
  if (seen.standard >= 0) return 'standard'
  return unpadded ? 'url' : 'standard'
}

// One pass over the original text, so every error points at its character there (UTF-16 index; for a raw
// body read as latin1 that is the byte offset). Buffer.from(x, 'base64') would silently skip bad input.
// Non-strict: ASCII whitespace anywhere, missing or partial padding, and non-zero trailing bits are tolerated.
// Strict: no whitespace, canonical trailing bits (RFC 4648 §3.5), and complete padding for the standard
// alphabet; base64url may also omit all of it (RFC 4648 §5, RFC 7515), never just part of it.
export function decodeBase64(text: string, variant: DecodeVariant, strict: boolean): DecodedBase64 {
  const out = Buffer.alloc(Math.floor((text.length * 3) / 4))
  const seen: Record<Base64Variant, number> = { standard: -1, url: -1 }
  const pads: number[] = []
  let acc = 0
  let bits = 0
  let count = 0
  let written = 0
  let lastData = -1
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === EQUALS) {
      if (pads.length < 3) pads.push(i)
      continue
    }
    if (isSpace(c)) {
      if (strict) fail(i, 'Whitespace is not allowed in strict mode')
      continue
    }
    const value = c < 128 ? VALUES[c]! : -1
    if (value < 0) fail(i, `Invalid base64 character ${describeChar(text, i)}`)
    if (pads.length > 0) fail(i, "Data after the '=' padding")
    checkAlphabet(text, i, variant, seen)
    acc = (acc << 6) | value
    bits += 6
    count++
    lastData = i
    if (bits >= 8) {
      bits -= 8
      out[written++] = (acc >> bits) & 0xff
      acc &= (1 << bits) - 1
    }
  }
  const rest = count % 4
  if (rest === 1) fail(lastData, 'A single base64 character left over at the end cannot encode a byte')
  const needed = rest === 0 ? 0 : 4 - rest
  if (pads.length > needed) fail(pads[needed]!, 'Too much padding')
  const resolved = variant === 'auto' ? detectVariant(seen, needed > 0 && pads.length === 0) : variant
  if (strict) {
    if (pads.length < needed && (resolved === 'standard' || pads.length > 0)) {
      fail(text.length, `Missing padding: ${needed - pads.length} '=' expected at the end`)
    }
    if (acc !== 0)
      fail(lastData, 'Non-canonical encoding: the unused low bits of the last character must be zero')
  }
  return { bytes: out.subarray(0, written), variant: resolved }
}
