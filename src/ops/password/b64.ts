// The three Base64 dialects password hashes are written in. Each decoder is strict: it returns undefined
// for anything its encoder would not have written (a foreign character, padding, whitespace, a length of
// 1 mod 4, or non-zero trailing bits in the last group), so one set of bytes has exactly one spelling.

// PHC string format "B64": RFC 4648 standard alphabet, no padding (its specification's "B64").
export function b64Encode(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64').replace(/=+$/, '')
}

// Node's decoder skips characters outside the alphabet and ignores trailing bits; re-encoding and
// comparing refuses all of it at once (the PHC spec lets consumers reject non-canonical trailing bits,
// and libargon2 does).
export function b64Decode(text: string): Buffer | undefined {
  const bytes = Buffer.from(text, 'base64')
  return b64Encode(bytes) === text ? bytes : undefined
}

// passlib's "ab64" (passlib.utils.binary.ab64_encode): B64 with "." in place of "+", used by its
// $pbkdf2-sha256$ and $pbkdf2-sha512$ hashes. Its decoder takes "+" as well, and so does this one.
export function ab64Decode(text: string): Buffer | undefined {
  return b64Decode(text.replaceAll('.', '+'))
}

export function ab64Encode(bytes: Uint8Array): string {
  return b64Encode(bytes).replaceAll('+', '.')
}

// bcrypt's radix-64: its own alphabet in its own order, no padding (OpenBSD lib/libc/crypt/bcrypt.c).
const BCRYPT_ALPHABET = './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
const STANDARD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const TO_STANDARD = new Map([...BCRYPT_ALPHABET].map((c, i) => [c, STANDARD_ALPHABET[i]!]))
const TO_BCRYPT = new Map([...STANDARD_ALPHABET].map((c, i) => [c, BCRYPT_ALPHABET[i]!]))

// The digit values are the same in both alphabets, so a character-for-character translation turns one
// into the other and the strict B64 decoder does the rest.
export function bcrypt64Decode(text: string): Buffer | undefined {
  let standard = ''
  for (const c of text) {
    const mapped = TO_STANDARD.get(c)
    if (mapped === undefined) return undefined
    standard += mapped
  }
  return b64Decode(standard)
}

export function bcrypt64Encode(bytes: Uint8Array): string {
  let out = ''
  for (const c of b64Encode(bytes)) out += TO_BCRYPT.get(c)!
  return out
}
