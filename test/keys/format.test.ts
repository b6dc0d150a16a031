import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checksum, generateKey, hashKey, KEY_LENGTH, keyPrefix, parseKey } from '../../src/keys/format.ts'
import { BASE62, toBase62 } from '../../src/lib/ids.ts'

const base62Char = fc.constantFrom(...BASE62.split(''))
const body = fc.string({ unit: base62Char, minLength: 30, maxLength: 30 })
const mode = fc.constantFrom('live' as const, 'test' as const)

function keyOf(m: string, b: string): string {
  const head = `anvil_${m}_${b}`
  return head + checksum(head)
}

describe('key format', () => {
  it('base62 is most-significant-first and zero-padded', () => {
    expect(toBase62(0, 6)).toBe('000000')
    expect(toBase62(61, 6)).toBe('00000z')
    expect(toBase62(62, 6)).toBe('000010')
    expect(toBase62(0xffffffff, 6)).toBe('4gfFC3')
  })

  it('checksum is CRC32 (IEEE) of everything before it', () => {
    // 0xCBF43926 is the published CRC-32/IEEE check value of "123456789"
    expect(checksum('123456789')).toBe(toBase62(0xcbf43926, 6))
  })

  it('generated keys have the documented shape and parse', () => {
    for (const m of ['live', 'test'] as const) {
      const key = generateKey(m)
      expect(key).toMatch(new RegExp(`^anvil_${m}_[0-9A-Za-z]{36}$`))
      expect(key).toHaveLength(KEY_LENGTH)
      expect(parseKey(key)).toEqual({ mode: m })
      expect(keyPrefix(key)).toBe(key.slice(0, 17))
    }
  })

  it('property: every well-formed key parses with its mode', () => {
    fc.assert(
      fc.property(mode, body, (m, b) => {
        expect(parseKey(keyOf(m, b))).toEqual({ mode: m })
      }),
    )
  })

  it('property: any single-character change is refused by the checksum', () => {
    fc.assert(
      fc.property(mode, body, fc.nat({ max: 35 }), base62Char, (m, b, index, replacement) => {
        const key = keyOf(m, b)
        const at = 'anvil_live_'.length + index
        fc.pre(key[at] !== replacement)
        const mutated = key.slice(0, at) + replacement + key.slice(at + 1)
        expect(parseKey(mutated)).toBeUndefined()
      }),
      { numRuns: 2000 },
    )
  })

  it('property: adjacent transpositions are refused', () => {
    fc.assert(
      fc.property(mode, body, fc.nat({ max: 34 }), (m, b, index) => {
        const key = keyOf(m, b)
        const at = 'anvil_live_'.length + index
        fc.pre(key[at] !== key[at + 1])
        const swapped = key.slice(0, at) + key[at + 1] + key[at] + key.slice(at + 2)
        expect(parseKey(swapped)).toBeUndefined()
      }),
      { numRuns: 1000 },
    )
  })

  it('refuses wrong prefixes, lengths and alphabets', () => {
    const good = generateKey('live')
    for (const bad of [
      '',
      good.slice(0, -1),
      `${good}0`,
      good.replace('anvil_live_', 'anvil_prod_'),
      good.replace('anvil_', 'Anvil_'),
      `${good.slice(0, 20)}-${good.slice(21)}`,
      ` ${good.slice(1)}`,
    ]) {
      expect(parseKey(bad)).toBeUndefined()
    }
  })

  it('stores only a hash that does not contain the key', () => {
    const key = generateKey('live')
    const h = hashKey(key)
    expect(h).not.toContain(key.slice(11))
    expect(h).toBe(hashKey(key))
    expect(h).not.toBe(hashKey(generateKey('live')))
  })
})
