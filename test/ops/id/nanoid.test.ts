import fc from 'fast-check'
import { urlAlphabet } from 'nanoid'
import { describe, expect, it } from 'vitest'
import { alphabetSymbols, generateNanoids, maskFor, randomIndices } from '../../../src/ops/id/nanoid.ts'

function fails(fn: () => unknown, code: string, details: Record<string, unknown> = {}) {
  expect(fn).toThrowError(expect.objectContaining({ code, details: expect.objectContaining(details) }))
}

// A byte source that walks 0, 1, …, 255, 0, 1, … across calls.
function cyclicBytes(): (length: number) => Uint8Array {
  let next = 0
  return (length) => Uint8Array.from({ length }, () => next++ & 0xff)
}

describe('nanoid', () => {
  it('defaults: 21 URL-safe characters', () => {
    const { ids } = generateNanoids({})
    expect(ids).toHaveLength(1)
    expect(ids[0]).toMatch(/^[A-Za-z0-9_-]{21}$/)
    expect(new Set(urlAlphabet).size).toBe(64)
  })

  it('size and count', () => {
    const { ids } = generateNanoids({ size: 255, count: 1000 })
    expect(ids).toHaveLength(1000)
    expect(new Set(ids).size).toBe(1000)
    for (const id of ids) expect(id).toHaveLength(255)
    expect(generateNanoids({ size: 2 }).ids[0]).toHaveLength(2)
  })

  it('alphabet characters are code points, so astral symbols stay whole', () => {
    const { ids } = generateNanoids({ alphabet: '😀😁🎉', size: 30, count: 5 })
    for (const id of ids) {
      expect(id.isWellFormed()).toBe(true)
      expect(Array.from(id)).toHaveLength(30)
      for (const ch of id) expect('😀😁🎉').toContain(ch)
    }
  })

  it('refuses duplicate characters at their position', () => {
    fails(() => alphabetSymbols('ab😀c😀'), 'ERR_VALIDATION', {
      issues: [expect.objectContaining({ path: 'alphabet', position: 5 })],
    })
    fails(() => alphabetSymbols('abca'), 'ERR_VALIDATION', {
      issues: [expect.objectContaining({ position: 3, message: expect.stringContaining('first at 0') })],
    })
  })

  it('refuses alphabets outside 2–256 code points and lone surrogates', () => {
    fails(() => alphabetSymbols('😀'), 'ERR_VALIDATION', {
      issues: [expect.objectContaining({ path: 'alphabet' })],
    })
    const big = Array.from({ length: 257 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join('')
    fails(() => alphabetSymbols(big), 'ERR_VALIDATION')
    expect(alphabetSymbols(big.slice(0, 256))).toHaveLength(256)
    fails(() => alphabetSymbols('ab\udc00'), 'ERR_INVALID_ENCODING', { field: 'alphabet', position: 2 })
  })

  it('maskFor is the smallest all-ones mask covering every index', () => {
    expect([2, 3, 4, 5, 64, 65, 128, 129, 255, 256].map(maskFor)).toEqual([
      1, 3, 3, 7, 63, 127, 127, 255, 255, 255,
    ])
  })

  it('no modulo bias: one full cycle of byte values yields every index equally often', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 256 }), (size) => {
        const perIndex = 256 / (maskFor(size) + 1)
        const indices = randomIndices(size, size * perIndex, cyclicBytes())
        const counts = new Array<number>(size).fill(0)
        for (const i of indices) counts[i]!++
        expect(counts).toEqual(new Array(size).fill(perIndex))
      }),
      { numRuns: 100 },
    )
  })

  it('is roughly uniform with the real random source (chi-square, 200 symbols, very generous bound)', () => {
    const alphabet = Array.from({ length: 200 }, (_, i) => String.fromCodePoint(0x100 + i)).join('')
    const { ids } = generateNanoids({ alphabet, size: 255, count: 1000 })
    const counts = new Map<string, number>()
    for (const id of ids) for (const ch of id) counts.set(ch, (counts.get(ch) ?? 0) + 1)
    const expected = (255 * 1000) / 200
    let chi = 0
    for (const ch of alphabet) chi += ((counts.get(ch) ?? 0) - expected) ** 2 / expected
    // 199 degrees of freedom: mean 199, sd 20. 400 is ten sd away (never by chance), while reducing
    // bytes modulo 200 would give 56 symbols twice the weight and a chi-square in the tens of thousands.
    expect(chi).toBeLessThan(400)
  })
})
