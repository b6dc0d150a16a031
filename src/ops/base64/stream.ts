import { okEnvelopeAroundBytes, okEnvelopeBytes } from '../../lib/envelope.ts'
import { NOTHING, type StreamStep } from '../stream-step.ts'
import type { ByteEncoding } from '../types.ts'
import { describeDecoded, encodeBase64 } from './base64.ts'
import { createBase64Decoder, endBase64Decoder, writeBase64Decoder } from './decode.ts'
import type { Base64Variant, DecodeVariant } from './types.ts'

// Base64 encoding of a body that arrives in chunks, as plain data: each chunk's whole 3-byte groups are
// encoded at once and the 0–2 bytes left over wait for the next chunk, so the output is exactly the
// one-shot encoding, cut into pieces, at constant memory.
export interface Base64Encoder {
  variant: Base64Variant
  padding: boolean | undefined
  carry: Uint8Array
  carried: number
}

export function createBase64Encoder(variant: Base64Variant, padding?: boolean): Base64Encoder {
  return { variant, padding, carry: new Uint8Array(3), carried: 0 }
}

// The Base64 text of the chunk's complete groups, as ASCII bytes.
export function writeBase64Encoder(e: Base64Encoder, chunk: Uint8Array): Buffer {
  const total = e.carried + chunk.length
  const whole = total - (total % 3)
  const taken = whole - e.carried
  let text = ''
  if (whole > 0) {
    const groups =
      e.carried === 0
        ? chunk.subarray(0, taken)
        : Buffer.concat([e.carry.subarray(0, e.carried), chunk.subarray(0, taken)])
    text = Buffer.from(groups.buffer, groups.byteOffset, groups.byteLength).toString(
      e.variant === 'url' ? 'base64url' : 'base64',
    )
  }
  const rest = whole > 0 ? chunk.subarray(taken) : chunk
  e.carry.set(rest, whole > 0 ? 0 : e.carried)
  e.carried = whole > 0 ? rest.length : total
  return Buffer.from(text, 'latin1')
}

// The last 1–2 bytes, with the padding the options ask for.
export function endBase64Encoder(e: Base64Encoder): Buffer {
  return Buffer.from(encodeBase64(e.carry.subarray(0, e.carried), e.variant, e.padding), 'latin1')
}

const ascii = new TextEncoder()

// The JSON text of a streamed encode's answer data, `{"output":…,"variant":…}`, in pieces: the encoded
// bytes, in the pieces they were made in, between the text before and after them (src/lib/envelope.ts puts
// the envelope around them and copies each once): Base64 text holds no character JSON escapes, so its
// bytes go between the quotes as they are, where joining the pieces, a string of the output,
// JSON.stringify and a UTF-8 encoder would each copy it once more. The bytes are those of
// JSON.stringify({ output, variant }).
export function encodedDataJson(output: readonly Uint8Array[], variant: Base64Variant): Uint8Array[] {
  return [ascii.encode('{"output":"'), ...output, ascii.encode(`","variant":${JSON.stringify(variant)}}`)]
}

export interface EncodeStreamOptions {
  variant: Base64Variant
  padding?: boolean | undefined
}

// A raw body encoded as it arrives: the Base64 text streams back, or is answered in its envelope.
export function encodeStep(options: EncodeStreamOptions): StreamStep {
  const encoder = createBase64Encoder(options.variant, options.padding)
  return {
    write: (chunk) => [writeBase64Encoder(encoder, chunk)],
    end: () => endBase64Encoder(encoder),
    answer: (output) => okEnvelopeAroundBytes(encodedDataJson(output, options.variant)),
  }
}

export interface DecodeStreamOptions {
  variant: DecodeVariant
  strict: boolean
  output_encoding: ByteEncoding
}

// A raw body of Base64 text decoded as it arrives: the bytes stream back, or are described in the envelope
// as a JSON body's decode would be (the alphabet is known once the body has ended).
export function decodeStep(options: DecodeStreamOptions): StreamStep {
  const decoder = createBase64Decoder(options.variant, options.strict)
  let variant: Base64Variant | undefined
  return {
    write: (chunk) => [writeBase64Decoder(decoder, chunk)],
    end: () => {
      variant = endBase64Decoder(decoder)
      return NOTHING
    },
    answer: (output) =>
      okEnvelopeBytes(
        JSON.stringify(describeDecoded(Buffer.concat(output), variant!, options.output_encoding)),
      ),
  }
}
