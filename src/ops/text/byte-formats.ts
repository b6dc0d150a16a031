import { AppError } from '../../errors.ts'
import { type ByteEncoding, decodeInput, encodeOutput } from '../encoding.ts'
import { base32Scanner, encodeBase32 } from './base32.ts'
import { base58Scanner, encodeBase58 } from './base58.ts'
import { ascii85Scanner, encodeAscii85, encodeZ85, z85Scanner } from './base85.ts'
import { encodeBinary, encodeHex, scanBinary, scanHex } from './bytes.ts'
import { type ByteScanner, decodeScannedUtf8, requireWellFormed, scanBytes } from './shared.ts'
import { BYTE_FORMATS, type ByteFormat, PADDED_FORMATS, STRICT_FORMATS, type TextFormat } from './types.ts'

// The formats of text/encode and text/decode that carry bytes rather than text. What "text" means for them:
// encoding takes the input's UTF-8 bytes (or the bytes `input_encoding` spells: hex, base64, base64url),
// decoding answers the bytes as UTF-8 text, refusing bytes that are not UTF-8 at the character they came
// from (or, with `output_encoding`, the bytes in hex, base64 or base64url). docs/decisions.md, "More
// encodings".

interface ByteCodec {
  encode: (bytes: Uint8Array, padding: boolean | undefined) => string
  scanner: (strict: boolean) => ByteScanner
}

const CODECS: Record<ByteFormat, ByteCodec> = {
  hex: { encode: encodeHex, scanner: () => scanHex },
  binary: { encode: encodeBinary, scanner: () => scanBinary },
  base32: { encode: (b, p) => encodeBase32(b, 'base32', p), scanner: (s) => base32Scanner('base32', s) },
  base32hex: {
    encode: (b, p) => encodeBase32(b, 'base32hex', p),
    scanner: (s) => base32Scanner('base32hex', s),
  },
  base32_crockford: {
    encode: (b) => encodeBase32(b, 'base32_crockford', false),
    scanner: (s) => base32Scanner('base32_crockford', s),
  },
  base58: { encode: encodeBase58, scanner: base58Scanner },
  ascii85: { encode: encodeAscii85, scanner: ascii85Scanner },
  z85: { encode: encodeZ85, scanner: z85Scanner },
}

export interface ByteOptions {
  input_encoding?: ByteEncoding | undefined
  output_encoding?: ByteEncoding | undefined
  padding?: boolean | undefined
  strict?: boolean | undefined
}

export function isByteFormat(format: TextFormat): format is ByteFormat {
  return (BYTE_FORMATS as readonly string[]).includes(format)
}

function notFor(field: string, format: TextFormat, takers: readonly string[]): AppError {
  const message = `applies only to the formats ${takers.join(', ')}, not to ${format}`
  return new AppError('ERR_VALIDATION', `\`${field}\` ${message}`, { issues: [{ path: field, message }] })
}

const TAKES: Record<keyof ByteOptions, readonly string[]> = {
  input_encoding: BYTE_FORMATS,
  output_encoding: BYTE_FORMATS,
  padding: PADDED_FORMATS,
  strict: STRICT_FORMATS,
}

// An option given for a format that does not take it is refused rather than ignored (utf8, what every
// format reads and writes, is taken by all).
export function checkByteOptions(format: TextFormat, options: ByteOptions): void {
  for (const field of Object.keys(TAKES) as (keyof ByteOptions)[]) {
    const value = options[field]
    if (value === undefined || value === 'utf8') continue
    if (!TAKES[field].includes(format)) throw notFor(field, format, TAKES[field])
  }
}

export function encodeBytesAs(format: ByteFormat, input: string, options: ByteOptions): string {
  const encoding = options.input_encoding ?? 'utf8'
  if (encoding === 'utf8') requireWellFormed(input, format)
  const bytes = encoding === 'utf8' ? Buffer.from(input, 'utf8') : decodeInput(input, encoding)
  return CODECS[format].encode(bytes, options.padding)
}

export function decodeBytesFrom(format: ByteFormat, input: string, options: ByteOptions): string {
  const scan = CODECS[format].scanner(options.strict ?? false)
  const encoding = options.output_encoding ?? 'utf8'
  if (encoding === 'utf8') return decodeScannedUtf8(input, format, scan)
  return encodeOutput(scanBytes(input, scan), encoding)
}
