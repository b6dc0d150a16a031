import { type ByteScanner, describeChar, invalidText, isAsciiSpace } from './shared.ts'
import type { Base32Format } from './types.ts'

// Base32 in RFC 4648's two alphabets (§6 "base32", §7 "base32hex") and in Crockford's: 5 bits per character,
// the bytes read as one bit string (Crockford's alphabet on RFC 4648's grouping, unpadded: see
// docs/decisions.md, "More encodings"). Lenient decoding takes what people paste (any case, whitespace,
// missing or partial padding, Crockford's hyphens and his I L O for 1 1 0); strict takes only the canonical
// form, as base64's strict mode does (src/ops/base64/).

const ALPHABETS: Record<Base32Format, string> = {
  base32: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567',
  base32hex: '0123456789ABCDEFGHIJKLMNOPQRSTUV',
  base32_crockford: '0123456789ABCDEFGHJKMNPQRSTVWXYZ',
}

const EQUALS = 0x3d
const HYPHEN = 0x2d
// characters in a group of 8, by the number of data characters of a final group: how much '=' follows
const PADDING: Record<number, number> = { 0: 0, 2: 6, 4: 4, 5: 3, 7: 1 }

interface Tables {
  letters: Uint8Array
  // the canonical characters' values, -1 elsewhere
  canonical: Int8Array
  // what lenient decoding also reads: lower case, and Crockford's I, L (1) and O (0) in either case
  lenient: Int8Array
}

function tablesOf(format: Base32Format): Tables {
  const alphabet = ALPHABETS[format]
  const canonical = new Int8Array(128).fill(-1)
  const lenient = new Int8Array(128).fill(-1)
  for (let v = 0; v < 32; v++) {
    const c = alphabet.charCodeAt(v)
    canonical[c] = v
    lenient[c] = v
    lenient[c | 0x20] = v
  }
  if (format === 'base32_crockford') {
    for (const [ch, v] of [
      ['I', 1],
      ['L', 1],
      ['O', 0],
    ] as const) {
      lenient[ch.charCodeAt(0)] = v
      lenient[ch.toLowerCase().charCodeAt(0)] = v
    }
  }
  return { letters: Buffer.from(alphabet, 'latin1'), canonical, lenient }
}

const TABLES: Record<Base32Format, Tables> = {
  base32: tablesOf('base32'),
  base32hex: tablesOf('base32hex'),
  base32_crockford: tablesOf('base32_crockford'),
}

// RFC 4648 pads with '=' to a multiple of 8 characters (padding: true, the default); Crockford never pads.
export function encodeBase32(bytes: Uint8Array, format: Base32Format, padding = true): string {
  const { letters } = TABLES[format]
  const chars = Math.ceil((bytes.length * 8) / 5)
  const padded = padding && format !== 'base32_crockford' ? Math.ceil(chars / 8) * 8 : chars
  const out = Buffer.alloc(padded, EQUALS)
  let acc = 0
  let bits = 0
  let o = 0
  for (let i = 0; i < bytes.length; i++) {
    acc = ((acc << 8) | bytes[i]!) & 0xfff
    bits += 8
    while (bits >= 5) {
      bits -= 5
      out[o++] = letters[(acc >> bits) & 31]!
    }
  }
  if (bits > 0) out[o] = letters[(acc << (5 - bits)) & 31]!
  return out.toString('latin1')
}

function fail(format: Base32Format, position: number, message: string): never {
  throw invalidText(format, position, message)
}

// A character neither table reads, or one only lenient decoding reads, named as such in strict mode.
function refuse(format: Base32Format, t: Tables, c: number, i: number): never {
  if (c < 128 && t.lenient[c]! >= 0) {
    fail(
      format,
      i,
      `${describeChar(c)} is read in lenient mode only: strict takes the canonical alphabet, upper case`,
    )
  }
  fail(format, i, `Invalid ${format} character ${describeChar(c)}`)
}

// Reads the text, emitting each byte with the position of the character that completes it.
export function base32Scanner(format: Base32Format, strict: boolean): ByteScanner {
  const t = TABLES[format]
  const crockford = format === 'base32_crockford'
  const values = strict ? t.canonical : t.lenient
  return function scanBase32(input, emit) {
    let acc = 0
    let bits = 0
    let count = 0
    let lastData = -1
    const pads: number[] = []
    for (let i = 0; i < input.length; i++) {
      const c = input.charCodeAt(i)
      if (c === EQUALS && !crockford) {
        pads.push(i)
        continue
      }
      if (isAsciiSpace(c) || (crockford && c === HYPHEN)) {
        if (strict) fail(format, i, `${describeChar(c)} is not allowed in strict mode`)
        continue
      }
      const v = c < 128 ? values[c]! : -1
      if (v < 0) refuse(format, t, c, i)
      if (pads.length > 0) fail(format, i, "Data after the '=' padding")
      acc = ((acc << 5) | v) & 0x1fff
      bits += 5
      count++
      lastData = i
      if (bits >= 8) {
        bits -= 8
        emit((acc >> bits) & 0xff, i)
      }
    }
    const rest = count % 8
    const needed = PADDING[rest]
    if (needed === undefined) {
      fail(format, lastData, `${rest} ${format} characters left over at the end cannot encode whole bytes`)
    }
    if (pads.length > needed) fail(format, pads[needed]!, 'Too much padding')
    if (!strict) return
    if (!crockford && pads.length < needed) {
      fail(format, input.length, `Missing padding: ${needed - pads.length} '=' expected at the end`)
    }
    if ((acc & ((1 << bits) - 1)) !== 0) {
      fail(format, lastData, 'Non-canonical encoding: the unused low bits of the last character must be zero')
    }
  }
}
