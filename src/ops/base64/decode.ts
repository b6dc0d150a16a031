import { checkAlphabet, describe, detectVariant, EQUALS, fail, isSpace, VALUES } from './alphabet.ts'
import type { Base64Decoder, Base64Variant, DecodedBase64, DecodeVariant } from './types.ts'

export function createBase64Decoder(variant: DecodeVariant, strict: boolean): Base64Decoder {
  return {
    variant,
    strict,
    position: 0,
    standardAt: -1,
    standardChar: 0,
    urlAt: -1,
    urlChar: 0,
    pads: [],
    acc: 0,
    bits: 0,
    count: 0,
    lastData: -1,
  }
}

// Everything but a plain letter or digit before any padding.
function special(d: Base64Decoder, c: number, i: number): boolean {
  if (c === EQUALS) {
    if (d.pads.length < 3) d.pads.push(i)
    return false
  }
  if (isSpace(c)) {
    if (d.strict) fail(i, 'Whitespace is not allowed in strict mode')
    return false
  }
  if (VALUES[c]! < 0) fail(i, `Invalid base64 character ${describe(c)}`)
  if (d.pads.length > 0) fail(i, "Data after the '=' padding")
  if (VALUES[c]! >= 62) checkAlphabet(d, c, i)
  return true
}

// Decodes chunk[from, to) into `out` from `written`; returns the new `written`. Called on slices of a
// few KiB, so that it is optimized as a whole function (state written back on every call) rather than
// entered mid-loop.
function decodeSlice(
  d: Base64Decoder,
  chunk: Uint8Array,
  from: number,
  to: number,
  out: Buffer,
  written: number,
) {
  let { acc, bits, count, lastData } = d
  let padded = d.pads.length > 0
  const base = d.position - from
  let k = from
  while (k < to) {
    // whole groups of four letters or digits, the bulk of any Base64 text, three bytes at a time
    if (bits === 0 && !padded && k + 4 <= to) {
      const v0 = VALUES[chunk[k]!]!
      const v1 = VALUES[chunk[k + 1]!]!
      const v2 = VALUES[chunk[k + 2]!]!
      const v3 = VALUES[chunk[k + 3]!]!
      if ((v0 | v1 | v2 | v3) >= 0 && v0 < 62 && v1 < 62 && v2 < 62 && v3 < 62) {
        const group = (v0 << 18) | (v1 << 12) | (v2 << 6) | v3
        out[written] = group >> 16
        out[written + 1] = (group >> 8) & 0xff
        out[written + 2] = group & 0xff
        written += 3
        count += 4
        lastData = base + k + 3
        k += 4
        continue
      }
    }
    const c = chunk[k]!
    const value = VALUES[c]!
    k++
    if (value < 0 || value >= 62 || padded) {
      const data = special(d, c, base + k - 1)
      padded = d.pads.length > 0
      if (!data) continue
    }
    acc = (acc << 6) | value
    bits += 6
    count++
    lastData = base + k - 1
    if (bits >= 8) {
      bits -= 8
      out[written++] = (acc >> bits) & 0xff
      acc &= (1 << bits) - 1
    }
  }
  d.acc = acc
  d.bits = bits
  d.count = count
  d.lastData = lastData
  d.position += to - from
  return written
}

const SLICE = 4096

// One pass over the text, so every error points at its character there. Buffer.from(x, 'base64') would
// silently skip bad input. Returns the bytes this chunk completes.
export function writeBase64Decoder(d: Base64Decoder, chunk: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(Math.floor((d.bits + chunk.length * 6) / 8))
  let written = 0
  for (let from = 0; from < chunk.length; from += SLICE) {
    written = decodeSlice(d, chunk, from, Math.min(from + SLICE, chunk.length), out, written)
  }
  return out.subarray(0, written)
}

// The checks only the end can make. Non-strict: missing or partial padding and non-zero trailing bits
// are tolerated. Strict: canonical trailing bits (RFC 4648 §3.5), and complete padding for the standard
// alphabet; base64url may also omit all of it (RFC 4648 §5, RFC 7515), never just part of it.
export function endBase64Decoder(d: Base64Decoder): Base64Variant {
  const { pads, lastData } = d
  const rest = d.count % 4
  if (rest === 1) fail(lastData, 'A single base64 character left over at the end cannot encode a byte')
  const needed = rest === 0 ? 0 : 4 - rest
  if (pads.length > needed) fail(pads[needed]!, 'Too much padding')
  const resolved = d.variant === 'auto' ? detectVariant(d, needed > 0 && pads.length === 0) : d.variant
  if (d.strict) {
    if (pads.length < needed && (resolved === 'standard' || pads.length > 0)) {
      fail(d.position, `Missing padding: ${needed - pads.length} '=' expected at the end`)
    }
    if (d.acc !== 0)
      fail(lastData, 'Non-canonical encoding: the unused low bits of the last character must be zero')
  }
  return resolved
}

// The `input` form: a JavaScript string, whose characters past U+00FF are never Base64. Up to the first
// of them it is read as latin1 bytes (one byte per UTF-16 unit, so positions stay UTF-16 indexes).
export function decodeBase64(text: string, variant: DecodeVariant, strict: boolean): DecodedBase64 {
  const d = createBase64Decoder(variant, strict)
  const wide = /[^\x00-\xff]/.exec(text)
  const latin1 = Buffer.from(wide ? text.slice(0, wide.index) : text, 'latin1')
  const bytes = writeBase64Decoder(d, latin1)
  if (wide) fail(wide.index, `Invalid base64 character ${describe(text.charCodeAt(wide.index))}`)
  return { bytes, variant: endBase64Decoder(d) }
}
