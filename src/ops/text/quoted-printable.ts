import {
  type ByteScanner,
  decodeScannedUtf8,
  emitUtf8Char,
  hexValue,
  invalidText,
  isHexDigit,
  requireWellFormed,
} from './shared.ts'

const MAX_LINE = 76

function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09
}

// Length of the line break starting at i (LF or CRLF), 0 if none.
function breakAt(bytes: ArrayLike<number>, i: number): number {
  if (bytes[i] === 0x0a) return 1
  return bytes[i] === 0x0d && bytes[i + 1] === 0x0a ? 2 : 0
}

const HEX_DIGITS = Buffer.from('0123456789ABCDEF', 'latin1')

// RFC 2045 §6.7 over the UTF-8 bytes. Line breaks of the text are hard breaks, written as they came (CRLF or
// LF) so decoding gives the text back; a lone CR is encoded. Blanks before a break or the end are encoded,
// and soft breaks ("=" CRLF) keep every line within 76 characters. Written into one buffer: every byte
// becomes at most 3 characters, and a soft break follows at least 73 of them.
export function encodeQuotedPrintable(input: string): string {
  requireWellFormed(input, 'quoted_printable')
  const bytes = Buffer.from(input, 'utf8')
  const out = Buffer.alloc(bytes.length * 3 + Math.ceil((bytes.length * 3) / 73) * 3)
  let o = 0
  let line = 0
  for (let i = 0; i < bytes.length; i++) {
    const hard = breakAt(bytes, i)
    if (hard > 0) {
      o += bytes.copy(out, o, i, i + hard)
      line = 0
      i += hard - 1
      continue
    }
    const b = bytes[i]!
    const lineEnds = i + 1 === bytes.length || breakAt(bytes, i + 1) > 0
    const literal = isBlank(b) ? !lineEnds : b >= 33 && b <= 126 && b !== 0x3d
    const width = literal ? 1 : 3
    if (line + width > MAX_LINE - 1) {
      o = out.write('=\r\n', o, 'latin1') + o
      line = 0
    }
    if (literal) out[o++] = b
    else {
      out[o++] = 0x3d
      out[o++] = HEX_DIGITS[b >> 4]!
      out[o++] = HEX_DIGITS[b & 0x0f]!
    }
    line += width
  }
  return out.toString('latin1', 0, o)
}

// Lenient where RFC 2045 asks decoders to be robust (lower-case hex, "=" LF soft breaks, blanks added by
// transports at line ends, non-ASCII literals), strict about a '=' that starts neither an octet nor a break.
const scanQuotedPrintable: ByteScanner = function scanQuotedPrintable(input, emit) {
  let i = 0
  while (i < input.length) {
    const c = input.charCodeAt(i)
    if (c === 0x3d) {
      const hi = input.charCodeAt(i + 1)
      const lo = input.charCodeAt(i + 2)
      if (isHexDigit(hi) && isHexDigit(lo)) {
        emit(hexValue(hi) * 16 + hexValue(lo), i)
        i += 3
        continue
      }
      let j = i + 1
      while (isBlank(input.charCodeAt(j))) j++
      const soft = j === input.length ? 0 : breakAtText(input, j)
      if (j < input.length && soft === 0) {
        throw invalidText('quoted_printable', i, "'=' must be followed by two hex digits or a line break")
      }
      i = j + soft
    } else if (isBlank(c)) {
      let j = i
      while (isBlank(input.charCodeAt(j))) j++
      const trailing = j === input.length || breakAtText(input, j) > 0
      if (!trailing) for (let k = i; k < j; k++) emit(input.charCodeAt(k), k)
      i = j
    } else {
      i += emitUtf8Char(input, i, 'quoted_printable', emit)
    }
  }
}

function breakAtText(input: string, i: number): number {
  const c = input.charCodeAt(i)
  if (c === 0x0a) return 1
  return c === 0x0d && input.charCodeAt(i + 1) === 0x0a ? 2 : 0
}

export function decodeQuotedPrintable(input: string): string {
  return decodeScannedUtf8(input, 'quoted_printable', scanQuotedPrintable)
}
