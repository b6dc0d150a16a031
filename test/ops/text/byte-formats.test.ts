import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BASE58_MAX_BYTES } from '../../../src/ops/text/base58.ts'
import { type TextCodecInput, textDecode, textEncode } from '../../../src/ops/text/codecs.ts'
import { BYTE_FORMATS, type ByteFormat } from '../../../src/ops/text/types.ts'

// The byte formats of text/encode and text/decode (issue 40): RFC 4648 §10's vectors, the Z85 spec's, the
// base58 vectors of base-x (Bitcoin Core's among them, test/fixtures/conformance/base58/), strict and
// lenient decoding with the error's position, options and bounds.

type Options = Omit<TextCodecInput, 'input' | 'format'>
const enc = (format: ByteFormat, input: string, options: Options = {}) =>
  textEncode({ input, format, ...options }).output
const dec = (format: ByteFormat, input: string, options: Options = {}) =>
  textDecode({ input, format, ...options }).output
const hexOf = (format: ByteFormat, input: string, options: Options = {}) =>
  dec(format, input, { ...options, output_encoding: 'hex' })

function refuses(fn: () => unknown, format: string, position: number, message?: RegExp): void {
  let caught: unknown
  try {
    fn()
  } catch (err) {
    caught = err
  }
  expect(caught).toMatchObject({ code: 'ERR_INVALID_ENCODING', details: { format, position } })
  if (message) expect((caught as Error).message).toMatch(message)
}

// RFC 4648 §10
const RFC4648 = ['', 'f', 'fo', 'foo', 'foob', 'fooba', 'foobar']
const BASE32 = ['', 'MY======', 'MZXQ====', 'MZXW6===', 'MZXW6YQ=', 'MZXW6YTB', 'MZXW6YTBOI======']
const BASE32HEX = ['', 'CO======', 'CPNG====', 'CPNMU===', 'CPNMUOG=', 'CPNMUOJ1', 'CPNMUOJ1E8======']

describe('base32 and base32hex (RFC 4648 §6, §7)', () => {
  it('RFC 4648 §10 vectors, both ways, padded by default', () => {
    RFC4648.forEach((text, i) => {
      expect(enc('base32', text)).toBe(BASE32[i])
      expect(enc('base32hex', text)).toBe(BASE32HEX[i])
      expect(dec('base32', BASE32[i]!, { strict: true })).toBe(text)
      expect(dec('base32hex', BASE32HEX[i]!, { strict: true })).toBe(text)
    })
  })

  it('padding: false leaves the "=" out; lenient decoding reads it back', () => {
    expect(enc('base32', 'foobar', { padding: false })).toBe('MZXW6YTBOI')
    expect(dec('base32', 'MZXW6YTBOI')).toBe('foobar')
    expect(dec('base32', 'MZXW6YTBOI===')).toBe('foobar')
  })

  it('lenient decoding takes lower case and whitespace; strict refuses each where it is', () => {
    expect(dec('base32', 'mzxw 6ytb\noi======')).toBe('foobar')
    refuses(() => dec('base32', 'MZXW6ytb', { strict: true }), 'base32', 5, /lenient mode only/)
    refuses(() => dec('base32', 'MZXW 6YTB', { strict: true }), 'base32', 4, /not allowed in strict mode/)
    refuses(() => dec('base32', 'MZXW6YTBOI', { strict: true }), 'base32', 10, /Missing padding: 6/)
  })

  it('refuses characters of the other alphabet, data after padding, impossible lengths, too much padding', () => {
    refuses(() => dec('base32', 'MZ1Q===='), 'base32', 2, /Invalid base32 character '1'/)
    refuses(() => dec('base32hex', 'CPNW===='), 'base32hex', 3, /'W'/)
    refuses(() => dec('base32', 'MY======MY'), 'base32', 8, /after the '=' padding/)
    refuses(() => dec('base32', 'MZXW6YTBO'), 'base32', 8, /1 base32 characters left over/)
    refuses(() => dec('base32', 'MZX'), 'base32', 2, /3 base32 characters left over/)
    refuses(() => dec('base32', 'MY=======', { strict: true }), 'base32', 8, /Too much padding/)
  })

  it('strict refuses unused low bits that are not zero; lenient drops them', () => {
    // "MZ" is 01100 11001: "f" (01100110) and the bits 01, which must be zero
    expect(hexOf('base32', 'MZ======')).toBe('66')
    refuses(() => dec('base32', 'MZ======', { strict: true }), 'base32', 1, /Non-canonical/)
  })
})

describe('base32_crockford', () => {
  it("is the RFC 4648 bit grouping in Crockford's alphabet, unpadded", () => {
    expect(enc('base32_crockford', 'foobar')).toBe('CSQPYRK1E8')
    expect(enc('base32_crockford', 'ff', { input_encoding: 'hex' })).toBe('ZW')
    expect(dec('base32_crockford', 'CSQPYRK1E8', { strict: true })).toBe('foobar')
  })

  it('lenient decoding reads i, I, l, L as 1 and o, O as 0, lower case and hyphens; strict does not', () => {
    // 0 and 1 and their look-alikes: the bytes 0x00 0x84 ("00" "11" → 00000 00001 00001 0...)
    const canonical = enc('base32_crockford', '0001', { input_encoding: 'hex' })
    expect(canonical).toBe('000G')
    expect(hexOf('base32_crockford', 'oOog')).toBe('0001')
    expect(hexOf('base32_crockford', 'csqp-yrk1-e8')).toBe(hexOf('base32_crockford', 'CSQPYRK1E8'))
    expect(hexOf('base32_crockford', 'IiLl')).toBe(hexOf('base32_crockford', '1111'))
    refuses(() => dec('base32_crockford', 'CSQP-YRK1E8', { strict: true }), 'base32_crockford', 4)
    refuses(() => dec('base32_crockford', 'CSQPYRKIE8', { strict: true }), 'base32_crockford', 7)
  })

  it('refuses U and the check symbols and padding Crockford leaves out', () => {
    refuses(() => dec('base32_crockford', 'CSQU'), 'base32_crockford', 3, /'U'/)
    refuses(() => dec('base32_crockford', 'CS*'), 'base32_crockford', 2)
    refuses(() => dec('base32_crockford', 'CSQPY==='), 'base32_crockford', 5, /'='/)
  })
})

describe('base58 (Bitcoin)', () => {
  const fixtures = JSON.parse(
    readFileSync(new URL('../../fixtures/conformance/base58/fixtures.json', import.meta.url), 'utf8'),
  ) as {
    valid: { alphabet: string; hex: string; string: string }[]
    invalid: { alphabet: string; string: unknown; description: string }[]
  }

  it("passes every base58 vector of base-x (Bitcoin Core's included), both ways", () => {
    const valid = fixtures.valid.filter((f) => f.alphabet === 'base58')
    expect(valid.length).toBe(97)
    for (const f of valid) {
      expect(enc('base58', f.hex, { input_encoding: 'hex' })).toBe(f.string)
      expect(hexOf('base58', f.string, { strict: true })).toBe(f.hex)
    }
  })

  it('refuses every invalid base58 string of base-x in strict mode (whitespace is the only leniency)', () => {
    const invalid = fixtures.invalid.filter((f) => f.alphabet === 'base58' && typeof f.string === 'string')
    expect(invalid.length).toBeGreaterThan(4)
    for (const f of invalid) {
      expect(() => dec('base58', f.string as string, { strict: true, output_encoding: 'hex' })).toThrowError(
        expect.objectContaining({ code: 'ERR_INVALID_ENCODING' }),
      )
    }
    expect(hexOf('base58', ' 1111111111\n')).toBe('00'.repeat(10))
  })

  it('refuses 0 O I l at their position', () => {
    refuses(() => dec('base58', '2g0'), 'base58', 2, /'0'/)
    refuses(() => dec('base58', 'abIl'), 'base58', 2, /'I'/)
  })

  it(`takes ${BASE58_MAX_BYTES} bytes and refuses one more, either way`, () => {
    const max = 'ff'.repeat(BASE58_MAX_BYTES)
    const text = enc('base58', max, { input_encoding: 'hex' })
    expect(hexOf('base58', text)).toBe(max)
    const over = { code: 'ERR_COMPUTE_LIMIT', details: expect.objectContaining({ reason: 'base58_length' }) }
    expect(() => enc('base58', `${max}ff`, { input_encoding: 'hex' })).toThrowError(
      expect.objectContaining(over),
    )
    // the text of one more byte: a leading '1' is a zero byte
    expect(() => hexOf('base58', `1${text}`)).toThrowError(expect.objectContaining(over))
  })
})

describe('ascii85', () => {
  it('encodes as btoa and Python\'s a85encode: "z" for zero groups, n + 1 characters for a last n bytes', () => {
    expect(enc('ascii85', 'Man is distinguished')).toBe('9jqo^BlbD-BleB1DJ+*+F(f,q')
    expect(enc('ascii85', '0000000000000000', { input_encoding: 'hex' })).toBe('zz')
    expect(enc('ascii85', '000000', { input_encoding: 'hex' })).toBe('!!!!')
    expect(enc('ascii85', '.')).toBe('/c')
  })

  it("lenient decoding takes whitespace and Adobe's <~ ~>; strict takes the canonical text only", () => {
    expect(dec('ascii85', ' <~9jqo^BlbD-\nBleB1DJ+*+F(f,q~> ')).toBe('Man is distinguished')
    expect(dec('ascii85', '9jqo^BlbD-BleB1DJ+*+F(f,q', { strict: true })).toBe('Man is distinguished')
    refuses(() => dec('ascii85', '<~/c~>', { strict: true }), 'ascii85', 1, /'~'/)
    refuses(() => dec('ascii85', '!!!!!', { strict: true }), 'ascii85', 0, /written 'z'/)
    expect(hexOf('ascii85', '!!!!!')).toBe('00000000')
    // '/c' is '.', and so is '/d' (its unused part rounds up the same): lenient only
    expect(dec('ascii85', '/d')).toBe('.')
    refuses(() => dec('ascii85', '/d', { strict: true }), 'ascii85', 1, /Non-canonical/)
  })

  it('refuses a z inside a group, a lone last character, a group over 32 bits, characters past u', () => {
    refuses(() => dec('ascii85', '9jzqo'), 'ascii85', 2, /inside a group/)
    refuses(() => dec('ascii85', '9jqo^B'), 'ascii85', 5, /single character/)
    expect(hexOf('ascii85', 's8W-!')).toBe('ffffffff')
    refuses(() => dec('ascii85', 's8W-"'), 'ascii85', 4, /larger than 4 bytes/)
    refuses(() => dec('ascii85', 'abcy'), 'ascii85', 3, /'y'/)
  })
})

describe('z85 (ZeroMQ RFC 32)', () => {
  it("the spec's vector, both ways", () => {
    expect(enc('z85', '864FD26FB559F75B', { input_encoding: 'hex' })).toBe('HelloWorld')
    expect(hexOf('z85', 'HelloWorld', { strict: true })).toBe('864fd26fb559f75b')
  })

  it('refuses bytes that are not whole 4-byte groups, and text that is not whole 5-character groups', () => {
    refuses(() => enc('z85', 'abcde'), 'z85', 4, /leave 1 over/)
    refuses(() => dec('z85', 'HelloWorl'), 'z85', 8, /4 are left over/)
    refuses(() => dec('z85', 'Hello"orld'), 'z85', 5, /'"'/)
    expect(hexOf('z85', '%nSc0')).toBe('ffffffff')
    refuses(() => dec('z85', '%nSc1'), 'z85', 4, /larger than 4 bytes/)
    refuses(() => dec('z85', 'Hello World', { strict: true }), 'z85', 5, /strict/)
    expect(dec('z85', 'Hello World', { output_encoding: 'hex' })).toBe('864fd26fb559f75b')
  })
})

describe('what "text" means for byte formats', () => {
  it('encodes the UTF-8 bytes of the text, or the bytes input_encoding spells', () => {
    expect(enc('base32', 'é')).toBe('YOUQ====')
    expect(enc('base32', 'c3a9', { input_encoding: 'hex' })).toBe('YOUQ====')
    expect(enc('base58', 'w6k', { input_encoding: 'base64' })).toBe(enc('base58', 'é'))
  })

  it('decodes to UTF-8 text, refusing bytes that are not UTF-8 where they came from; or to bytes', () => {
    // 0xff is no UTF-8 byte: the character that completes it is refused
    refuses(() => dec('base32', '74======'), 'base32', 1, /not valid UTF-8/)
    expect(dec('base32', '74======', { output_encoding: 'base64' })).toBe('/w==')
    expect(dec('z85', 'HelloWorld', { output_encoding: 'base64url' })).toBe('hk_Sb7VZ91s')
  })

  it('refuses an option the format does not take, naming it', () => {
    const refused = (field: string) =>
      expect.objectContaining({
        code: 'ERR_VALIDATION',
        details: { issues: [expect.objectContaining({ path: field })] },
      })
    expect(() => enc('base58', 'x', { padding: false })).toThrowError(refused('padding'))
    expect(() => dec('hex', '41', { strict: true })).toThrowError(refused('strict'))
    expect(() => textEncode({ input: 'x', format: 'url', input_encoding: 'hex' })).toThrowError(
      refused('input_encoding'),
    )
    expect(() => textDecode({ input: 'x', format: 'html', output_encoding: 'base64' })).toThrowError(
      refused('output_encoding'),
    )
    // utf8 is what every format reads and writes
    expect(textEncode({ input: 'x', format: 'url', input_encoding: 'utf8' }).output).toBe('x')
  })
})

describe('byte format properties', () => {
  const bytes = fc.uint8Array({ maxLength: 64 })
  for (const format of BYTE_FORMATS) {
    it(`${format}: decode(encode(b)) = b, strictly`, () => {
      fc.assert(
        fc.property(format === 'z85' ? bytes.filter((b) => b.length % 4 === 0) : bytes, (b) => {
          const hex = Buffer.from(b).toString('hex')
          const text = enc(format, hex, { input_encoding: 'hex' })
          const strict = format === 'hex' || format === 'binary' ? {} : { strict: true }
          expect(hexOf(format, text, strict)).toBe(hex)
        }),
        { numRuns: 300 },
      )
    })
  }

  it('every refusal of random text points inside it', () => {
    const text = fc.string({ unit: fc.constantFrom(...'AZaz019=-_ \n~<>zuIlOU!"#'.split('')), maxLength: 30 })
    for (const format of BYTE_FORMATS) {
      fc.assert(
        fc.property(text, fc.boolean(), (s, strict) => {
          try {
            dec(format, s, format === 'hex' || format === 'binary' ? {} : { strict, output_encoding: 'hex' })
          } catch (err) {
            const e = err as { code: string; details: { position: number } }
            expect(e.code).toBe('ERR_INVALID_ENCODING')
            expect(e.details.position).toBeGreaterThanOrEqual(0)
            expect(e.details.position).toBeLessThanOrEqual(s.length)
          }
        }),
        { numRuns: 200 },
      )
    }
  })
})
