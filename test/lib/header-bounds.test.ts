import { describe, expect, it } from 'vitest'
import { HEADER_BOUNDS, lastWithinBound, withinBound } from '../../src/lib/header-bounds.ts'

// Every bound at the bound and one past it: the length, then the number of elements.
describe('request header bounds', () => {
  it('the length: at the bound within, one past over', () => {
    for (const bound of Object.values(HEADER_BOUNDS)) {
      expect(withinBound('a'.repeat(bound.bytes), bound), bound.name).toBe(true)
      expect(withinBound('a'.repeat(bound.bytes + 1), bound), bound.name).toBe(false)
    }
  })

  it('the elements of a list header: at the bound within, one past over (empty ones count)', () => {
    for (const bound of Object.values(HEADER_BOUNDS)) {
      if (!('items' in bound)) continue
      const at = Array.from({ length: bound.items }, () => 'a').join(bound.separator)
      expect(withinBound(at, bound), bound.name).toBe(true)
      expect(withinBound(`${at}${bound.separator}a`, bound), bound.name).toBe(false)
      expect(withinBound(bound.separator.repeat(bound.items), bound), bound.name).toBe(false)
    }
  })

  it('X-Forwarded-For: the nearest hops are kept, whole, within 32 elements and 2 KiB', () => {
    const bound = HEADER_BOUNDS['x-forwarded-for']
    const hops = Array.from({ length: 40 }, (_, i) => `10.0.0.${i}`)
    expect(lastWithinBound(hops.join(', '), bound)).toBe(hops.slice(8).join(', '))
    expect(lastWithinBound(hops.slice(8).join(','), bound)).toBe(hops.slice(8).join(','))
    // 2 KiB: an element that would cross it is left out with all before it
    const long = `${'x'.repeat(2048 - 8)},1.2.3.4`
    expect(lastWithinBound(long, bound)).toBe(long)
    expect(lastWithinBound(`y${long}`, bound)).toBe('1.2.3.4')
    expect(lastWithinBound('z'.repeat(2049), bound)).toBeUndefined()
  })
})
