import { isUtf8 } from 'node:buffer'
import { type ByteEncoding, decodeInput, encodeOutput } from '../encoding.ts'
import { decodeBase64 } from './decode.ts'
import type { Base64Variant, DecodeVariant } from './types.ts'

export interface Base64EncodeInput {
  input: string
  input_encoding?: ByteEncoding
  variant?: Base64Variant
  padding?: boolean
}

export interface Base64EncodeResult {
  output: string
  variant: Base64Variant
}

export interface Base64DecodeInput {
  input: string
  variant?: DecodeVariant
  output_encoding?: ByteEncoding
  strict?: boolean
}

export interface Base64DecodeResult {
  output: string
  output_encoding: ByteEncoding
  bytes: number
  valid_utf8: boolean
  variant: Base64Variant
}

// Padding defaults follow usage: RFC 4648 §4 pads, base64url in URLs and JOSE (RFC 7515) does not.
export function encodeBase64(bytes: Uint8Array, variant: Base64Variant, padding?: boolean): string {
  const pad = padding ?? variant === 'standard'
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(
    variant === 'url' ? 'base64url' : 'base64',
  )
  if (variant === 'url') return pad ? text + '='.repeat((4 - (text.length % 4)) % 4) : text
  if (pad) return text
  let end = text.length
  while (end > 0 && text.charCodeAt(end - 1) === 0x3d) end--
  return text.slice(0, end)
}

export function base64Encode(params: Base64EncodeInput): Base64EncodeResult {
  const variant = params.variant ?? 'standard'
  const bytes = decodeInput(params.input, params.input_encoding ?? 'utf8')
  return { output: encodeBase64(bytes, variant, params.padding), variant }
}

// ignoreBOM keeps a leading U+FEFF in the output: the bytes are reported as they are.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true })

export function describeDecoded(
  bytes: Buffer,
  variant: Base64Variant,
  outputEncoding: ByteEncoding,
): Base64DecodeResult {
  return {
    output: outputEncoding === 'utf8' ? utf8.decode(bytes) : encodeOutput(bytes, outputEncoding),
    output_encoding: outputEncoding,
    bytes: bytes.length,
    valid_utf8: isUtf8(bytes),
    variant,
  }
}

export function base64Decode(params: Base64DecodeInput): Base64DecodeResult {
  const { bytes, variant } = decodeBase64(params.input, params.variant ?? 'auto', params.strict ?? false)
  return describeDecoded(bytes, variant, params.output_encoding ?? 'utf8')
}
