import { loneSurrogateAt } from '../../encoding.ts'

// The tokenizer reads UTF-8 bytes. A JavaScript string may hold lone surrogates, which UTF-8 cannot
// encode; WTF-8 writes them as three bytes (ED A0..BF xx) the tokenizer refuses where they stand. Any
// lone surrogate makes the text invalid JSON, so the bytes stop after the first one.
export function textToWtf8(text: string): Buffer {
  const at = loneSurrogateAt(text)
  if (at < 0) return Buffer.from(text, 'utf8')
  const prefix = Buffer.from(text.slice(0, at), 'utf8')
  const unit = text.charCodeAt(at)
  const bytes = Buffer.allocUnsafe(prefix.length + 3)
  prefix.copy(bytes)
  bytes[prefix.length] = 0xed
  bytes[prefix.length + 1] = 0x80 | ((unit >> 6) & 0x3f)
  bytes[prefix.length + 2] = 0x80 | (unit & 0x3f)
  return bytes
}

function hexValue(c: number): number {
  return c <= 0x39 ? c - 0x30 : (c | 0x20) - 0x57
}

function hex4(bytes: Uint8Array, at: number): number {
  return (
    (hexValue(bytes[at]!) << 12) |
    (hexValue(bytes[at + 1]!) << 8) |
    (hexValue(bytes[at + 2]!) << 4) |
    hexValue(bytes[at + 3]!)
  )
}

function writeCodePoint(bytes: Uint8Array, w: number, cp: number): number {
  if (cp < 0x80) {
    bytes[w++] = cp
  } else if (cp < 0x800) {
    bytes[w++] = 0xc0 | (cp >> 6)
    bytes[w++] = 0x80 | (cp & 0x3f)
  } else if (cp < 0x10000) {
    bytes[w++] = 0xe0 | (cp >> 12)
    bytes[w++] = 0x80 | ((cp >> 6) & 0x3f)
    bytes[w++] = 0x80 | (cp & 0x3f)
  } else {
    bytes[w++] = 0xf0 | (cp >> 18)
    bytes[w++] = 0x80 | ((cp >> 12) & 0x3f)
    bytes[w++] = 0x80 | ((cp >> 6) & 0x3f)
    bytes[w++] = 0x80 | (cp & 0x3f)
  }
  return w
}

const SIMPLE: Record<number, number> = { 98: 0x08, 102: 0x0c, 110: 0x0a, 114: 0x0d, 116: 0x09 }

// Decodes the escapes of a validated string body in place (the decoded form is never longer) into
// WTF-8, where an escaped surrogate pair becomes its code point and a lone one stays a surrogate, so two
// keys are the same string exactly when their bytes are equal, and byte order is code point order.
// Returns the new end.
export function decodeKey(bytes: Uint8Array, start: number, end: number): number {
  let w = start
  let r = start
  while (r < end) {
    const c = bytes[r]!
    if (c !== 0x5c) {
      bytes[w++] = c
      r++
      continue
    }
    const e = bytes[r + 1]!
    if (e !== 0x75) {
      bytes[w++] = SIMPLE[e] ?? e
      r += 2
      continue
    }
    let cp = hex4(bytes, r + 2)
    r += 6
    if (cp >= 0xd800 && cp <= 0xdbff && bytes[r] === 0x5c && bytes[r + 1] === 0x75 && r + 6 <= end) {
      const low = hex4(bytes, r + 2)
      if (low >= 0xdc00 && low <= 0xdfff) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00)
        r += 6
      }
    }
    w = writeCodePoint(bytes, w, cp)
  }
  return w
}

// The JavaScript string of WTF-8 bytes, lone surrogates included (TextDecoder would replace them).
export function wtf8ToString(bytes: Uint8Array, start: number, end: number): string {
  const units: number[] = []
  let i = start
  while (i < end) {
    const c = bytes[i]!
    if (c < 0x80) {
      units.push(c)
      i++
    } else if (c < 0xe0) {
      units.push(((c & 0x1f) << 6) | (bytes[i + 1]! & 0x3f))
      i += 2
    } else if (c < 0xf0) {
      units.push(((c & 0x0f) << 12) | ((bytes[i + 1]! & 0x3f) << 6) | (bytes[i + 2]! & 0x3f))
      i += 3
    } else {
      const cp =
        ((c & 0x07) << 18) |
        ((bytes[i + 1]! & 0x3f) << 12) |
        ((bytes[i + 2]! & 0x3f) << 6) |
        (bytes[i + 3]! & 0x3f)
      units.push(0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff))
      i += 4
    }
  }
  let text = ''
  for (let k = 0; k < units.length; k += 4096) text += String.fromCharCode(...units.slice(k, k + 4096))
  return text
}
