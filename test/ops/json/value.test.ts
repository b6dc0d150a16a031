import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { decimalKey, isRawNumber, parseJsonExact } from '../../../src/ops/json/number.ts'
import { equalWithin, jsonEqual } from '../../../src/ops/json/value.ts'

// Equality by another road: a canonical text (keys sorted, numbers as their decimal value).
function canonical(value: unknown): string {
  if (isRawNumber(value)) return `n${decimalKey(value.rawJSON)}`
  if (typeof value === 'number') return `n${decimalKey(JSON.stringify(value))}`
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`
  }
  return JSON.stringify(value)
}

// JSON texts over a small alphabet, so that equal and nearly equal pairs are common: keys that repeat
// across objects (and __proto__), numbers with several spellings of one value.
const text = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(
      '1',
      '1.0',
      '10e-1',
      '2',
      '-0',
      '0',
      '12345678901234567890',
      '"1"',
      'null',
      'true',
      '"a"',
    ),
    fc.array(tie('value'), { maxLength: 3 }).map((items) => `[${items.join(',')}]`),
    fc
      .array(fc.tuple(fc.constantFrom('a', 'b', '__proto__', 'constructor'), tie('value')), { maxLength: 3 })
      .map((members) => `{${[...new Map(members)].map(([k, v]) => `"${k}":${v}`).join(',')}}`),
  ),
})).value

const nested = (depth: number, leaf: string) => `${'{"a":['.repeat(depth)}${leaf}${']}'.repeat(depth)}`

describe('jsonEqual', () => {
  it('agrees with comparing canonical texts, for any pair of documents', () => {
    fc.assert(
      fc.property(text, text, fc.boolean(), (a, b, same) => {
        const left = parseJsonExact(a)
        const right = parseJsonExact(same ? a.replaceAll('1.0', '1') : b)
        expect(jsonEqual(left, right)).toBe(canonical(left) === canonical(right))
      }),
      { seed: 24_2026, numRuns: 3000 },
    )
  })

  it('compares own "__proto__" members as data, and key order does not matter', () => {
    expect(jsonEqual(JSON.parse('{"__proto__":1,"a":2}'), JSON.parse('{"a":2,"__proto__":1}'))).toBe(true)
    expect(jsonEqual(JSON.parse('{"__proto__":1}'), JSON.parse('{"__proto__":2}'))).toBe(false)
    expect(jsonEqual(JSON.parse('{"__proto__":1}'), {})).toBe(false)
    expect(jsonEqual({ a: 1 }, { a: 1, b: 2 })).toBe(false)
    expect(jsonEqual({ a: 1, b: 2 }, { a: 1 })).toBe(false)
    expect(jsonEqual({ a: 1, c: 2 }, { a: 1, b: 2 })).toBe(false)
    expect(jsonEqual([], {})).toBe(false)
    expect(jsonEqual(parseJsonExact('[1.0]'), [1])).toBe(true)
  })

  it('compares documents of any depth (recursion for the first levels, an explicit stack below)', () => {
    for (const depth of [255, 256, 257, 5_000]) {
      expect(jsonEqual(JSON.parse(nested(depth, '1')), parseJsonExact(nested(depth, '1.0')))).toBe(true)
      expect(jsonEqual(JSON.parse(nested(depth, '1')), JSON.parse(nested(depth, '2')))).toBe(false)
    }
  })

  it('equalWithin answers exactly within its budget and gives up past it', () => {
    expect(equalWithin([1, 2, 3], [1, 2, 3], 3)).toBe(true)
    expect(equalWithin([1, 2, 3], [1, 2, 3], 2)).toBeUndefined()
    expect(equalWithin([1, 2, 3], [1, 2, 4], 3)).toBe(false)
    expect(equalWithin([1, 2], [1, 2, 3], 0)).toBe(false)
    expect(equalWithin({ a: [1, 2] }, { a: [1, 2] }, 3)).toBe(true)
    expect(equalWithin({ a: [1, 2] }, { a: [1, 2] }, 2)).toBeUndefined()
  })
})
