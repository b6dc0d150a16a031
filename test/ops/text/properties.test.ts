import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { loneSurrogateAt } from '../../../src/ops/encoding.ts'
import { TEXT_FORMATS, type TextFormat, textDecode, textEncode } from '../../../src/ops/text/codecs.ts'

const SPECIALS = [
  '&',
  '<',
  '>',
  '"',
  "'",
  '%',
  '+',
  '=',
  '\\',
  ' ',
  '\t',
  '\n',
  '\r',
  '\r\n',
  '\u2028',
  '#',
  ';',
  'u',
  '{',
  '0',
  '\0',
]
const codePoint = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })
const wellFormed = fc.string({ unit: fc.oneof(fc.constantFrom(...SPECIALS), codePoint), maxLength: 80 })
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c))
const anyUtf16 = fc.string({
  unit: fc.oneof(fc.constantFrom(...SPECIALS), codePoint, loneSurrogate),
  maxLength: 80,
})
// Pieces of valid and broken escapes of every format, so random decoder input reaches the edge cases.
const FRAGMENTS = [
  '&#x110000;',
  '&#1114111;',
  '&#xD800;',
  '&#0;',
  '&#;',
  '&amp;',
  '&nbsp;',
  '&lt',
  '\\u{110000}',
  '\\u{10FFFF}',
  '\\uD800',
  '\\x4',
  '\\08',
  '%ED%A0%80',
  '%F4%90%80%80',
  '%C3',
  '=C3=A9',
  '= \r\n',
  'xn--',
  'xn--99999999999a',
  '.',
  '0100000',
  'c3',
]
const hostileText = fc.string({
  unit: fc.oneof(fc.constantFrom(...FRAGMENTS, ...SPECIALS), codePoint, loneSurrogate),
  maxLength: 40,
})
const NOT_XML = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u

// Domain-like names: labels of ASCII letters, digits, hyphens and some non-ASCII, never an "xn--" label.
const labelChar = fc.constantFrom(...'abzAZ019-'.split(''), 'ü', 'é', 'ß', 'Ω', '例', 'え', 'テ', '😀')
const label = fc.string({ unit: labelChar, minLength: 1, maxLength: 24 }).filter((l) => !/^xn--/i.test(l))
const domain = fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.'))

const roundTrip = (format: TextFormat, s: string) =>
  textDecode({ input: textEncode({ input: s, format }).output, format }).output

function expectLocatedRefusal(err: unknown, format: string, input: string): void {
  const e = err as { code?: string; details?: { format: string; position: number } }
  expect(e.code).toBe('ERR_INVALID_ENCODING')
  expect(e.details?.format).toBe(format)
  expect(e.details?.position).toBeGreaterThanOrEqual(0)
  expect(e.details?.position).toBeLessThanOrEqual(input.length)
}

describe('text properties', () => {
  // z85 takes whole 4-byte groups only: its round trip is byte-formats.test.ts's
  for (const format of TEXT_FORMATS.filter((f) => f !== 'punycode' && f !== 'xml' && f !== 'z85')) {
    it(`${format}: decode(encode(s)) = s for well-formed text`, () => {
      fc.assert(
        fc.property(wellFormed, (s) => {
          expect(roundTrip(format, s)).toBe(s)
        }),
        { numRuns: 300 },
      )
    })
  }

  it('xml: decode(encode(s)) = s for text made of XML 1.0 characters', () => {
    fc.assert(
      fc.property(
        wellFormed.filter((s) => !NOT_XML.test(s)),
        (s) => {
          expect(roundTrip('xml', s)).toBe(s)
        },
      ),
    )
  })

  it('punycode: decode(encode(d)) = d for domain-like names', () => {
    fc.assert(
      fc.property(domain, (d) => {
        expect(roundTrip('punycode', d)).toBe(d)
      }),
      { numRuns: 300 },
    )
  })

  for (const format of ['json_string', 'js_string', 'unicode_escape', 'rot13'] as const) {
    it(`${format}: round-trips lone surrogates too`, () => {
      fc.assert(
        fc.property(anyUtf16, (s) => {
          expect(roundTrip(format, s)).toBe(s)
        }),
      )
    })
  }

  for (const format of [
    'url',
    'url_form',
    'hex',
    'binary',
    'punycode',
    'quoted_printable',
    'html',
    'xml',
  ] as const) {
    it(`${format}: encoding refuses a lone surrogate at its position`, () => {
      fc.assert(
        fc.property(
          anyUtf16.filter((s) => loneSurrogateAt(s) >= 0),
          (s) => {
            try {
              textEncode({ input: s, format })
              expect.unreachable()
            } catch (err) {
              expectLocatedRefusal(err, format, s)
              if (format !== 'xml')
                expect((err as { details: { position: number } }).details.position).toBe(loneSurrogateAt(s))
            }
          },
        ),
        { numRuns: 50 },
      )
    })
  }

  for (const format of TEXT_FORMATS) {
    it(`${format}: any input decodes or is refused with a position, never anything else`, () => {
      fc.assert(
        fc.property(fc.oneof(anyUtf16, hostileText), (s) => {
          try {
            expect(typeof textDecode({ input: s, format }).output).toBe('string')
          } catch (err) {
            expectLocatedRefusal(err, format, s)
          }
        }),
        { numRuns: 200 },
      )
    })
  }

  it('quoted_printable: no encoded line is longer than 76 characters', () => {
    fc.assert(
      fc.property(wellFormed, fc.nat(200), (s, pad) => {
        const out = textEncode({ input: 'x'.repeat(pad) + s, format: 'quoted_printable' }).output
        for (const line of out.split(/\r?\n/)) expect(line.length).toBeLessThanOrEqual(76)
      }),
    )
  })
})

// Where the platform has a reference decoder, agree with it: same output when both accept, and a refusal
// exactly when the reference refuses.
describe('text decoders agree with reference implementations', () => {
  const percentish = fc.string({
    unit: fc.oneof(
      fc.constantFrom(
        '%',
        '%2',
        '%C3',
        '%A9',
        '%E2',
        '%82',
        '%AC',
        '%F0',
        '%9F',
        '%FF',
        '%zz',
        '+',
        'a',
        'é',
      ),
      codePoint,
    ),
    maxLength: 12,
  })

  it('url ≡ decodeURIComponent', () => {
    fc.assert(
      fc.property(percentish, (s) => {
        let expected: string | undefined
        try {
          expected = decodeURIComponent(s)
        } catch {}
        if (expected === undefined) expect(() => textDecode({ input: s, format: 'url' })).toThrowError()
        else expect(textDecode({ input: s, format: 'url' }).output).toBe(expected)
      }),
      { numRuns: 500 },
    )
  })

  // Form values, mostly valid: escapes of whole characters (as encodeURIComponent and the form serializer
  // write them), literal characters, '+', and the characters a query splits on ('&', '=', '#', which a value
  // keeps); now and then a broken piece: a bad or cut escape, UTF-8 that is ill-formed once decoded (a lone
  // lead or continuation byte, an encoded surrogate, past U+10FFFF, overlong), a lone surrogate.
  const formValue = fc.string({
    unit: fc.oneof(
      { weight: 4, arbitrary: codePoint.map((c) => encodeURIComponent(c)) },
      { weight: 2, arbitrary: codePoint.map((c) => new URLSearchParams([['', c]]).toString().slice(1)) },
      { weight: 3, arbitrary: codePoint },
      { weight: 2, arbitrary: fc.constantFrom('+', '&', '=', '#', '%2B', '%25', '%26', 'a', 'é') },
      {
        weight: 2,
        arbitrary: fc.oneof(
          fc.constantFrom('%', '%2', '%zz', '%C3', '%A9', '%FF', '%E2%82', '%F0%9F'),
          fc.constantFrom('%ED%A0%80', '%F4%90%80%80', '%C0%AF'),
          loneSurrogate,
        ),
      },
    ),
    maxLength: 12,
  })

  it('url_form ≡ URLSearchParams where the value is valid, refused exactly where it is not', () => {
    let accepted = 0
    let refused = 0
    fc.assert(
      fc.property(formValue, (s) => {
        // The contract's refusals: a '%' not followed by two hex digits, bytes that are not UTF-8 once
        // decoded, a lone surrogate (no UTF-8 form) — exactly what decodeURIComponent throws on, plus the
        // surrogate it would let through. WHATWG's parser refuses nothing (it keeps a bad '%' and puts
        // U+FFFD for bad UTF-8), so it is the reference for the output only.
        let valid = loneSurrogateAt(s) < 0
        try {
          decodeURIComponent(s)
        } catch {
          valid = false
        }
        if (valid) {
          accepted++
          // '&' escaped for the reference only: the input is one value, where a literal '&' is kept
          const reference = new URLSearchParams(`x=${s.replaceAll('&', '%26')}`).get('x')
          expect(textDecode({ input: s, format: 'url_form' }).output, s).toBe(reference)
        } else {
          refused++
          let thrown: unknown
          try {
            textDecode({ input: s, format: 'url_form' })
          } catch (err) {
            thrown = err
          }
          expect(thrown, `${JSON.stringify(s)} is refused`).toBeDefined()
          expectLocatedRefusal(thrown, 'url_form', s)
        }
      }),
      { numRuns: 500 },
    )
    // both sides of the contract are exercised, not mostly one
    expect(accepted).toBeGreaterThanOrEqual(150)
    expect(refused).toBeGreaterThanOrEqual(150)
  })

  const escapeish = (fragments: string[]) =>
    fc.string({ unit: fc.oneof(fc.constantFrom(...fragments), codePoint), maxLength: 10 })

  it('json_string ≡ JSON.parse of the quoted text', () => {
    const fragments = ['\\', '\\n', '\\u00e9', '\\ud83d', '\\u12', '\\/', '\\x41', '"', '\n', '\u001f', 'a']
    fc.assert(
      fc.property(escapeish(fragments), (s) => {
        fc.pre(!s.startsWith('"'))
        let expected: string | undefined
        try {
          expected = JSON.parse(`"${s}"`)
        } catch {}
        if (expected === undefined)
          expect(() => textDecode({ input: s, format: 'json_string' })).toThrowError()
        else expect(textDecode({ input: s, format: 'json_string' }).output).toBe(expected)
      }),
      { numRuns: 500 },
    )
  })

  it('js_string ≡ a strict-mode string literal', () => {
    const fragments = [
      '\\',
      '\\0',
      '\\08',
      '\\1',
      '\\8',
      '\\x4',
      '\\x41',
      '\\u{1F600}',
      '\\u{110000}',
      '\\u{}',
      '\\u00e9',
      '\\a',
      "'",
      '\\\n',
      '\\\r\n',
      '\u2028',
      '\n',
      'a',
      '1',
    ]
    fc.assert(
      fc.property(escapeish(fragments), (s) => {
        fc.pre(!s.includes('"'))
        let expected: string | undefined
        try {
          expected = new Function(`'use strict'; return "${s}"`)()
        } catch {}
        if (expected === undefined) expect(() => textDecode({ input: s, format: 'js_string' })).toThrowError()
        else expect(textDecode({ input: s, format: 'js_string' }).output).toBe(expected)
      }),
      { numRuns: 500 },
    )
  })
})
