import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatJson } from '../../../../src/ops/json/format/format.ts'

const value = fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' })
const indent = fc.oneof(fc.integer({ min: 0, max: 8 }), fc.constant('\t' as const))

function minify(input: string, sort_keys = false): string {
  return formatJson({ input, mode: 'minify', sort_keys }).output
}

// Code point order is UTF-8 byte order: an independent reference for sort_keys.
function sortedReference(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(sortedReference).join(',')}]`
  if (typeof v !== 'object' || v === null) return JSON.stringify(v)
  const keys = Object.keys(v).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
  return `{${keys.map((k) => `${JSON.stringify(k)}:${sortedReference((v as Record<string, unknown>)[k])}`).join(',')}}`
}

describe('json format properties', () => {
  it('minify gives JSON.stringify of the document (canonical numbers, no duplicates)', () => {
    fc.assert(
      fc.property(value, indent, (v, space) => {
        const text = JSON.stringify(v, null, space === 0 ? undefined : space)
        expect(minify(text)).toBe(JSON.stringify(v))
      }),
      { numRuns: 300 },
    )
  })

  it('pretty then minify gives back the minified input', () => {
    fc.assert(
      fc.property(value, indent, fc.boolean(), (v, space, sort) => {
        const text = JSON.stringify(v)
        const pretty = formatJson({ input: text, indent: space, sort_keys: sort }).output
        expect(minify(pretty)).toBe(minify(text, sort))
      }),
      { numRuns: 300 },
    )
  })

  it('pretty output is what JSON.stringify(value, null, indent) prints', () => {
    fc.assert(
      fc.property(value, fc.integer({ min: 1, max: 8 }), (v, space) => {
        expect(formatJson({ input: JSON.stringify(v), indent: space }).output).toBe(
          JSON.stringify(v, null, space),
        )
        expect(formatJson({ input: JSON.stringify(v), indent: '\t' }).output).toBe(
          JSON.stringify(v, null, '\t'),
        )
      }),
      { numRuns: 200 },
    )
  })

  it('sort_keys orders every object by code point and loses nothing', () => {
    fc.assert(
      fc.property(value, (v) => {
        const sorted = minify(JSON.stringify(v, null, 1), true)
        expect(sorted).toBe(sortedReference(v))
        // through JSON.stringify, as -0 prints as 0
        expect(JSON.parse(sorted)).toEqual(JSON.parse(JSON.stringify(v)))
      }),
      { numRuns: 300 },
    )
  })

  it('copies any RFC 8259 number exactly', () => {
    const digits = fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 30 })
    const number = fc
      .tuple(
        fc.boolean(),
        fc.oneof(
          fc.constant('0'),
          digits.map((d) => `1${d}`),
        ),
        fc.option(
          digits.map((d) => `.${d}`),
          { nil: '' },
        ),
        fc.option(
          fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits).map((p) => p.join('')),
          { nil: '' },
        ),
      )
      .map(([neg, int, frac, exp]) => `${neg ? '-' : ''}${int}${frac}${exp}`)
    fc.assert(
      fc.property(fc.array(number, { minLength: 1, maxLength: 5 }), (numbers) => {
        const text = `{"n": [ ${numbers.join(' , ')} ]}`
        expect(minify(text)).toBe(`{"n":[${numbers.join(',')}]}`)
        expect(formatJson({ input: text }).output).toBe(`{\n  "n": [\n    ${numbers.join(',\n    ')}\n  ]\n}`)
      }),
      { numRuns: 300 },
    )
  })

  it('reports exactly the repeated keys of an object', () => {
    const key = fc.constantFrom('"a"', '"\\u0061"', '"b"', '"c"', '"\\u00e9"', '"é"')
    fc.assert(
      fc.property(fc.array(key, { maxLength: 40 }), (keys) => {
        const text = `{${keys.map((k, i) => `${k}:${i}`).join(',')}}`
        const decoded = keys.map((k) => JSON.parse(k) as string)
        const expected = decoded.filter((k, i) => decoded.indexOf(k) < i)
        const warnings = formatJson({ input: text }).warnings ?? []
        expect(warnings.map((w) => w.key)).toEqual(expected)
      }),
      { numRuns: 200 },
    )
  })

  it('accepts exactly what JSON.parse accepts (on mutated JSON, BOM and lone surrogates aside)', () => {
    const alphabet = fc.constantFrom(...'{}[]:,"\\ 0123456789.eE+-tfnul/\'\t\n\rxa'.split(''), '\u0001', 'é')
    const mutated = fc
      .tuple(
        fc.jsonValue({ maxDepth: 3 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(2), alphabet), { maxLength: 3 }),
      )
      .map(([v, edits]) => {
        let text = JSON.stringify(v)
        for (const [at, kind, ch] of edits) {
          const i = at % (text.length + 1)
          text =
            kind === 0
              ? text.slice(0, i) + text.slice(i + 1)
              : kind === 1
                ? text.slice(0, i) + ch + text.slice(i)
                : text.slice(0, i) + ch + text.slice(i + 1)
        }
        return text
      })
    fc.assert(
      fc.property(mutated, (text) => {
        let native = true
        try {
          JSON.parse(text)
        } catch {
          native = false
        }
        let ours = true
        try {
          formatJson({ input: text })
        } catch (err) {
          expect(err).toMatchObject({ code: 'ERR_INVALID_JSON' })
          const { offset } = (err as { details: { offset: number } }).details
          expect(offset).toBeGreaterThanOrEqual(0)
          expect(offset).toBeLessThanOrEqual(text.length)
          ours = false
        }
        expect(ours).toBe(native)
      }),
      { numRuns: 1000 },
    )
  })
})
