import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { inspectText } from '../../../src/ops/text/inspect.ts'
import { normalizeText } from '../../../src/ops/text/normalize.ts'

describe('text normalize', () => {
  it('applies each Unicode normalization form and says whether anything changed', () => {
    expect(normalizeText({ input: '\u00e9' })).toEqual({ output: '\u00e9', form: 'NFC', changed: false })
    expect(normalizeText({ input: 'e\u0301' })).toEqual({ output: '\u00e9', form: 'NFC', changed: true })
    expect(normalizeText({ input: '\u00e9', form: 'NFD' }).output).toBe('e\u0301')
    expect(normalizeText({ input: '\ufb01 \u2460', form: 'NFKC' }).output).toBe('fi 1')
    expect(normalizeText({ input: '\u1e9b\u0323', form: 'NFKD' }).output).toBe('s\u0323\u0307')
    expect(normalizeText({ input: 'a\ud800', form: 'NFD' })).toMatchObject({
      output: 'a\ud800',
      changed: false,
    })
  })

  it('is idempotent', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.constantFrom('NFC', 'NFD', 'NFKC', 'NFKD' as const),
        (s, form) => {
          const once = normalizeText({ input: s, form }).output
          expect(normalizeText({ input: once, form })).toEqual({ output: once, form, changed: false })
        },
      ),
    )
  })
})

describe('text inspect', () => {
  it('counts units, code points, graphemes, words, lines and UTF-8 bytes', () => {
    // "Cafe" + combining acute, a thumbs-up with a skin tone, CRLF, "line2", LF
    const input = 'Cafe\u0301 \u{1F44D}\u{1F3FD}\r\nline2\n'
    expect(inspectText({ input })).toEqual({
      utf16_units: 18,
      code_points: 16,
      graphemes: 13,
      words: 2,
      lines: 2,
      utf8_bytes: 23,
      well_formed: true,
      lone_surrogate_position: null,
      ascii: false,
      has_bom: false,
      line_endings: { lf: 1, crlf: 1, cr: 0 },
      control_characters: 0,
      format_characters: 0,
      bidi_controls: 0,
      normalized: { nfc: false, nfd: true, nfkc: false, nfkd: true },
    })
  })

  it('counts a family emoji as one grapheme of many code points', () => {
    const r = inspectText({ input: '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}' })
    expect(r).toMatchObject({
      graphemes: 1,
      code_points: 5,
      utf16_units: 8,
      utf8_bytes: 18,
      format_characters: 2,
    })
  })

  it('reports lone surrogates, counting each as the 3 bytes of U+FFFD', () => {
    expect(inspectText({ input: 'a\ud800b' })).toMatchObject({
      well_formed: false,
      lone_surrogate_position: 1,
      code_points: 3,
      utf8_bytes: 5,
    })
  })

  it('counts lines the POSIX way', () => {
    const lines = (input: string) => inspectText({ input }).lines
    expect([lines(''), lines('a'), lines('a\n'), lines('a\nb'), lines('\n\n'), lines('a\rb\r\nc')]).toEqual([
      0, 1, 1, 2, 2, 3,
    ])
  })

  it('flags invisible and dangerous characters', () => {
    const r = inspectText({ input: '\ufeffif (a\u202e) {\u200b}\u0000\t\u007f' })
    expect(r).toMatchObject({
      has_bom: true,
      bidi_controls: 1,
      format_characters: 3,
      control_characters: 2,
      ascii: false,
    })
    expect(inspectText({ input: 'plain ASCII' })).toMatchObject({
      ascii: true,
      words: 2,
      normalized: { nfkd: true },
    })
    expect(inspectText({ input: '\ufb01' }).normalized).toEqual({
      nfc: true,
      nfd: true,
      nfkc: false,
      nfkd: false,
    })
  })

  it('agrees with Buffer and the string iterator on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const r = inspectText({ input: s })
        expect(r.utf8_bytes).toBe(Buffer.byteLength(s))
        expect(r.code_points).toBe([...s].length)
        expect(r.graphemes).toBeLessThanOrEqual(r.code_points)
        expect(r.well_formed).toBe(true)
      }),
    )
  })
})
