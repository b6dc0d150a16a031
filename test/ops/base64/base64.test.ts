import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { base64Decode, base64Encode } from '../../../src/ops/base64/base64.ts'
import { decodeBase64 } from '../../../src/ops/base64/decode.ts'

// RFC 4648 §10
const RFC4648: [string, string][] = [
  ['', ''],
  ['f', 'Zg=='],
  ['fo', 'Zm8='],
  ['foo', 'Zm9v'],
  ['foob', 'Zm9vYg=='],
  ['fooba', 'Zm9vYmE='],
  ['foobar', 'Zm9vYmFy'],
]

function invalidAt(position: number) {
  return expect.objectContaining({ code: 'ERR_INVALID_BASE64', details: { position } })
}

describe('base64 RFC 4648 §10 vectors', () => {
  for (const [plain, encoded] of RFC4648) {
    const unpadded = encoded.replace(/=+$/, '')
    it(`"${plain}" ⇄ "${encoded}"`, () => {
      expect(base64Encode({ input: plain })).toEqual({ output: encoded, variant: 'standard' })
      expect(base64Encode({ input: plain, variant: 'url', padding: true }).output).toBe(encoded)
      expect(base64Encode({ input: plain, variant: 'url' }).output).toBe(unpadded)
      expect(base64Encode({ input: plain, padding: false }).output).toBe(unpadded)
      for (const strict of [false, true]) {
        for (const variant of ['auto', 'standard', 'url'] as const) {
          const r = base64Decode({ input: encoded, variant, strict })
          expect(r).toMatchObject({
            output: plain,
            bytes: plain.length,
            valid_utf8: true,
            output_encoding: 'utf8',
          })
        }
        expect(base64Decode({ input: unpadded, variant: 'url', strict }).output).toBe(plain)
      }
      expect(base64Decode({ input: unpadded }).output).toBe(plain)
    })
  }

  it('distinguishes the two alphabets (bytes fb ff bf)', () => {
    expect(base64Encode({ input: 'fbffbf', input_encoding: 'hex' }).output).toBe('+/+/')
    expect(base64Encode({ input: 'fbffbf', input_encoding: 'hex', variant: 'url' }).output).toBe('-_-_')
    expect(base64Decode({ input: '+/+/', output_encoding: 'hex' })).toMatchObject({
      output: 'fbffbf',
      variant: 'standard',
    })
    expect(base64Decode({ input: '-_-_', output_encoding: 'hex' })).toMatchObject({
      output: 'fbffbf',
      variant: 'url',
    })
    expect(base64Decode({ input: '-_-_', output_encoding: 'base64' }).output).toBe('+/+/')
    expect(base64Decode({ input: '+/+/', output_encoding: 'base64url' }).output).toBe('-_-_')
  })
})

describe('base64 decode rules', () => {
  it('non-strict tolerates whitespace, missing and partial padding, non-zero trailing bits', () => {
    expect(base64Decode({ input: ' Zm9v\r\nYmE\t' }).output).toBe('fooba')
    expect(base64Decode({ input: 'Zg' }).output).toBe('f')
    expect(base64Decode({ input: 'Zg=' }).output).toBe('f')
    expect(base64Decode({ input: 'Zh==' }).output).toBe('f')
  })

  it('strict refuses them, each at its position', () => {
    expect(() => base64Decode({ input: 'Zm9v YmE=', strict: true })).toThrowError(invalidAt(4))
    expect(() => base64Decode({ input: 'Zm9vYmE', variant: 'standard', strict: true })).toThrowError(
      invalidAt(7),
    )
    expect(() => base64Decode({ input: 'Zm9/YmE', strict: true })).toThrowError(invalidAt(7))
    expect(() => base64Decode({ input: 'Zg=', strict: true })).toThrowError(invalidAt(3))
    expect(() => base64Decode({ input: 'Zg=', variant: 'url', strict: true })).toThrowError(invalidAt(3))
    // RFC 4648 §3.5: "Zh==" and "Zg==" both decode to "f"; only "Zg==" is canonical
    expect(() => base64Decode({ input: 'Zh==', strict: true })).toThrowError(invalidAt(1))
    expect(() => base64Decode({ input: 'Zm9=', strict: true })).toThrowError(invalidAt(2))
    expect(base64Decode({ input: 'Zm8=', strict: true }).output).toBe('fo')
  })

  it('refuses bad characters at their position in the original input', () => {
    expect(() => base64Decode({ input: 'Zm 9v!YmFy' })).toThrowError(invalidAt(5))
    expect(() => base64Decode({ input: 'Zm9vé' })).toThrowError(invalidAt(4))
    expect(() => base64Decode({ input: 'Zm9v\ud800' })).toThrowError(invalidAt(4))
    expect(() => base64Decode({ input: '\u00a0Zm9v' })).toThrowError(invalidAt(0))
  })

  it('refuses impossible lengths, excess padding and data after padding', () => {
    expect(() => base64Decode({ input: 'Zm9vY' })).toThrowError(invalidAt(4))
    expect(() => base64Decode({ input: 'Z' })).toThrowError(invalidAt(0))
    expect(() => base64Decode({ input: 'Zm9v=' })).toThrowError(invalidAt(4))
    expect(() => base64Decode({ input: 'Zg===' })).toThrowError(invalidAt(4))
    expect(() => base64Decode({ input: '=' })).toThrowError(invalidAt(0))
    expect(() => base64Decode({ input: 'Zg==Zg==' })).toThrowError(invalidAt(4))
  })

  it('detects the alphabet and refuses a mix, or the wrong one, where it happens', () => {
    expect(() => base64Decode({ input: 'ab+c d-ef' })).toThrowError(invalidAt(6))
    expect(() => base64Decode({ input: '__/A' })).toThrowError(invalidAt(2))
    expect(() => base64Decode({ input: 'ab-_', variant: 'standard' })).toThrowError(invalidAt(2))
    expect(() => base64Decode({ input: 'ab/+', variant: 'url' })).toThrowError(invalidAt(2))
    expect(base64Decode({ input: 'YWJj' }).variant).toBe('standard')
    expect(base64Decode({ input: 'YQ==' }).variant).toBe('standard')
    // unpadded text fits only base64url in strict terms, so auto calls it url and strict mode accepts it
    expect(base64Decode({ input: 'YQ', strict: true })).toMatchObject({ output: 'a', variant: 'url' })
    expect(() => base64Decode({ input: '+A', strict: true })).toThrowError(invalidAt(2))
  })

  it('answers non-UTF-8 bytes with replacement characters and valid_utf8: false', () => {
    expect(base64Decode({ input: '/w==' })).toEqual({
      output: '\ufffd',
      output_encoding: 'utf8',
      bytes: 1,
      valid_utf8: false,
      variant: 'standard',
    })
    expect(base64Decode({ input: 'aGnDqQ==', output_encoding: 'hex' })).toMatchObject({
      output: '6869c3a9',
      valid_utf8: true,
    })
    expect(base64Decode({ input: '77u/YQ==' }).output).toBe('\ufeffa')
  })

  it('refuses a lone surrogate in text to encode', () => {
    expect(() => base64Encode({ input: 'ab\udc00' })).toThrowError(
      expect.objectContaining({
        code: 'ERR_INVALID_ENCODING',
        details: expect.objectContaining({ position: 2 }),
      }),
    )
  })
})

describe('base64 properties', () => {
  const variants = fc.constantFrom('standard' as const, 'url' as const)

  it('encode → decode is the identity for random bytes, both variants, with and without padding, strict or not', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        variants,
        fc.boolean(),
        fc.boolean(),
        (bytes, variant, padding, strict) => {
          const hex = Buffer.from(bytes).toString('hex')
          const encoded = base64Encode({ input: hex, input_encoding: 'hex', variant, padding }).output
          expect(encoded.endsWith('=')).toBe(padding && bytes.length % 3 !== 0)
          for (const v of ['auto', variant] as const) {
            // unpadded text is refused in strict mode only when it must be the standard alphabet
            const refused =
              strict && !padding && bytes.length % 3 !== 0 && (v === 'standard' || /[+/]/.test(encoded))
            if (refused) {
              expect(() => base64Decode({ input: encoded, variant: v, strict })).toThrowError(
                invalidAt(encoded.length),
              )
            } else {
              const r = base64Decode({ input: encoded, variant: v, output_encoding: 'hex', strict })
              expect(r.output).toBe(hex)
              expect(r.bytes).toBe(bytes.length)
            }
          }
        },
      ),
      { numRuns: 300 },
    )
  })

  it('non-strict decoding ignores whitespace inserted anywhere', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 60 }), fc.array(fc.nat(), { maxLength: 8 }), (bytes, cuts) => {
        let text = Buffer.from(bytes).toString('base64')
        for (const c of cuts)
          text = `${text.slice(0, c % (text.length + 1))}\n ${text.slice(c % (text.length + 1))}`
        expect(Buffer.from(decodeBase64(text, 'auto', false).bytes)).toEqual(Buffer.from(bytes))
      }),
    )
  })

  it('whatever it accepts, it decodes as Node does; whatever it refuses, it refuses with a position inside the input', () => {
    const unit = fc.constantFrom(...'AZaz09+/-_= \n!é'.split(''))
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 24 }), fc.boolean(), (text, strict) => {
        try {
          const { bytes } = decodeBase64(text, 'auto', strict)
          expect(Buffer.from(bytes)).toEqual(Buffer.from(text, 'base64'))
        } catch (err) {
          const e = err as { code: string; details: { position: number } }
          expect(e.code).toBe('ERR_INVALID_BASE64')
          expect(e.details.position).toBeGreaterThanOrEqual(0)
          expect(e.details.position).toBeLessThanOrEqual(text.length)
        }
      }),
      { numRuns: 500 },
    )
  })
})
