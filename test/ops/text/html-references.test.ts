import { encodeHTML } from 'entities'
import fc from 'fast-check'
import he from 'he'
import { describe, expect, it } from 'vitest'
import { LEGACY_NAMES, numericCharacter } from '../../../src/ops/text/html-references.ts'
import { decodeHtml } from '../../../src/ops/text/markup.ts'

const SEED = { seed: 15_2026 }

// The numeric-reference table of the HTML standard (§13.2.5.80), written out independently of the module.
const WINDOWS_1252 = '€\x81‚ƒ„…†‡ˆ‰Š‹Œ\x8DŽ\x8F\x90‘’“”•–—˜™š›œ\x9Džÿ'.replace('ÿ', 'Ÿ') // 0x80-0x9F
function specCharacter(cp: number): string {
  if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return '\uFFFD'
  if (cp >= 0x80 && cp <= 0x9f) return WINDOWS_1252[cp - 0x80]!
  return String.fromCodePoint(cp)
}

const codePoint = fc.oneof(
  fc.integer({ min: 0, max: 0x2ff }),
  fc.integer({ min: 0x80, max: 0x9f }),
  fc.integer({ min: 0xd7f0, max: 0xe010 }),
  fc.integer({ min: 0xfff0, max: 0x1100ff }),
  fc.integer({ min: 0, max: 0x7fffffff }),
)
const numericRef = fc
  .tuple(codePoint, fc.constantFrom('d', 'x', 'X'), fc.boolean(), fc.nat({ max: 3 }))
  .map(([cp, base, semicolon, zeros]) => {
    const digits = '0'.repeat(zeros) + (base === 'd' ? String(cp) : cp.toString(16))
    return { cp, text: `&#${base === 'd' ? '' : base}${digits}${semicolon ? ';' : ''}` }
  })
const names = [...LEGACY_NAMES, 'notin', 'hellip', 'NotEqualTilde', 'zfr', 'ampx', 'foo', 'not', 'noti']
// random text full of ampersands, names (legacy and not), numeric references and their near misses
const htmlText = fc
  .array(
    fc.oneof(
      numericRef.map((r) => r.text),
      fc.constantFrom(...names).map((n) => `&${n}`),
      fc.constantFrom('&', '&#', '&#x', '&#;', ';', '=', 'a', '1', 'Z', ' ', 'é', '😀', '&amp;', '<'),
      fc.string({ maxLength: 3 }),
    ),
    { maxLength: 20 },
  )
  .map((parts) => parts.join(''))

describe('HTML character references per the HTML standard (issue 15, items 2 and 3)', () => {
  it('maps &#128;-&#159; to windows-1252 and 0, surrogates and out-of-range values to U+FFFD', () => {
    expect(decodeHtml('&#150; &#x80; &#153; &#X9f;')).toBe('– € ™ Ÿ')
    expect(decodeHtml('&#129;&#x8D;&#x8F;&#x90;&#x9D;')).toBe('\x81\x8D\x8F\x90\x9D')
    expect(decodeHtml('&#0;&#xD800;&#xDFFF;&#x110000;&#99999999999999999999999;')).toBe('\uFFFD'.repeat(5))
    expect(decodeHtml('&#x1F600;&#13;&#xFFFF;&#1;')).toBe('😀\r\uFFFF\x01')
  })

  it('decodes numeric references without ";" and leaves "&#" without digits as text', () => {
    expect(decodeHtml('ab&#65 &#x41x &#;&#x;&#xZZ;')).toBe('abA Ax &#;&#x;&#xZZ;')
  })

  it('decodes legacy named references without ";" in text, and nothing else without it', () => {
    expect(decodeHtml('&copy 2024, &amp co')).toBe('© 2024, & co')
    expect(decodeHtml('&copy2024 &notit; &notin; &ampx; &AMP &COPY &frac12x')).toBe('©2024 ¬it; ∉ &x; & © ½x')
    expect(decodeHtml('&hellip &foo; &zfr AT&T &;')).toBe('&hellip &foo; &zfr AT&T &;')
  })

  it('knows exactly the legacy names: every Latin-1 name and AMP COPY GT LT QUOT REG', () => {
    expect(LEGACY_NAMES.size).toBe(106)
    // each is one the standard (here: he) decodes without ";"
    for (const name of LEGACY_NAMES) expect(he.decode(`&${name}`), name).not.toBe(`&${name}`)
    // and together they name every character from U+00A0 to U+00FF, plus & < > " © ®
    const named = new Set([...LEGACY_NAMES].map((name) => he.decode(`&${name};`)))
    const latin1 = Array.from({ length: 0x60 }, (_, k) => String.fromCharCode(0xa0 + k))
    expect([...latin1, '&', '<', '>', '"'].filter((c) => !named.has(c))).toEqual([])
    // an alias that is not legacy (&die; is ¨ like &uml;) is decoded only with its ";"
    expect(encodeHTML('¨')).toBe('&die;')
    expect(decodeHtml('&die &die;')).toBe('&die ¨')
  })

  it('every numeric reference, in every form, decodes to the table of the standard', () => {
    fc.assert(
      fc.property(numericRef, fc.string({ maxLength: 2 }), ({ cp, text }, tail) => {
        const follow = /^[0-9A-Fa-f;]/.test(tail) ? '' : tail
        expect(decodeHtml(`x${text}${follow}`)).toBe(`x${specCharacter(cp)}${follow}`)
        expect(numericCharacter(cp)).toBe(specCharacter(cp))
      }),
      { ...SEED, numRuns: 1000 },
    )
  })

  // Anvil's named references come from the `entities` tables, so the reference here is `he` (its own
  // tables and tokenizer), decoding text content as the standard does.
  it('agrees with he.decode (text content) on random HTML', () => {
    fc.assert(
      fc.property(htmlText, (text) => {
        expect(decodeHtml(text)).toBe(he.decode(text, { isAttributeValue: false }))
      }),
      { ...SEED, numRuns: 600 },
    )
  })
})
