import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { encodeBase64 } from '../../../src/ops/base64/base64.ts'
import {
  createBase64Decoder,
  decodeBase64,
  endBase64Decoder,
  writeBase64Decoder,
} from '../../../src/ops/base64/decode.ts'
import { createBase64Encoder, endBase64Encoder, writeBase64Encoder } from '../../../src/ops/base64/stream.ts'
import type { DecodeVariant } from '../../../src/ops/base64/types.ts'

function pieces(bytes: Uint8Array, positions: number[]): Uint8Array[] {
  const cuts = [...new Set(positions.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b)
  const out: Uint8Array[] = []
  let from = 0
  for (const cut of [...cuts, bytes.length]) {
    out.push(bytes.subarray(from, cut))
    from = cut
  }
  return out
}

type Outcome = { bytes: string; variant: string } | { error: string; details: unknown; message: string }

function outcome(run: () => { bytes: Uint8Array; variant: string }): Outcome {
  try {
    const { bytes, variant } = run()
    return { bytes: Buffer.from(bytes).toString('hex'), variant }
  } catch (err) {
    const e = err as { code: string; details: unknown; message: string }
    return { error: e.code, details: e.details, message: e.message }
  }
}

function streamedDecode(chunks: Uint8Array[], variant: DecodeVariant, strict: boolean): Outcome {
  return outcome(() => {
    const decoder = createBase64Decoder(variant, strict)
    const out = chunks.map((chunk) => writeBase64Decoder(decoder, chunk))
    return { bytes: Buffer.concat(out), variant: endBase64Decoder(decoder) }
  })
}

describe('base64 streaming: any split gives the one-shot answer', () => {
  it('encoding: the pieces join into encodeBase64 of the whole, for both alphabets and paddings', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 64 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.constantFrom('standard' as const, 'url' as const),
        fc.option(fc.boolean(), { nil: undefined }),
        (bytes, positions, variant, padding) => {
          const encoder = createBase64Encoder(variant, padding)
          const out = pieces(bytes, positions).map((chunk) => writeBase64Encoder(encoder, chunk))
          out.push(endBase64Encoder(encoder))
          expect(Buffer.concat(out).toString('latin1')).toBe(encodeBase64(bytes, variant, padding))
        },
      ),
      { numRuns: 500 },
    )
  })

  it('decoding: same bytes and alphabet, or the same error at the same position', () => {
    const unit = fc.constantFrom(...'AZaz09+/-_= \r\n!é'.split(''))
    const text = fc.oneof(
      fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('base64')),
      fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('base64url')),
      fc.string({ unit, maxLength: 40 }),
    )
    fc.assert(
      fc.property(
        text,
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.constantFrom('auto' as const, 'standard' as const, 'url' as const),
        fc.boolean(),
        (input, positions, variant, strict) => {
          const bytes = Buffer.from(input, 'latin1')
          const expected = outcome(() => decodeBase64(input, variant, strict))
          expect(streamedDecode(pieces(bytes, positions), variant, strict)).toEqual(expected)
        },
      ),
      { numRuns: 1000 },
    )
  })

  it('positions count across chunks, and a mix of alphabets names the earlier character', () => {
    const chunks = [Buffer.from('Zm9v\n'), Buffer.from('-_'), Buffer.from('ab+')]
    expect(streamedDecode(chunks, 'auto', false)).toEqual({
      error: 'ERR_INVALID_BASE64',
      details: { position: 9 },
      message:
        "Position 9: '+' (U+002B) mixes the standard base64 alphabet with the base64url '-' at position 5",
    })
    const strict = streamedDecode([Buffer.from('Zm9vYg'), Buffer.from('=')], 'standard', true)
    expect(strict).toMatchObject({ error: 'ERR_INVALID_BASE64', details: { position: 7 } })
  })
})
