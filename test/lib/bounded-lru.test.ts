import { LRUCache } from 'lru-cache'
import { describe, expect, it } from 'vitest'
import { boundedLru } from '../../src/lib/bounded-lru.ts'

describe('boundedLru', () => {
  it('holds `entries` entries, and one past evicts the least recently used', () => {
    const cache = boundedLru<string, number>(3)
    for (const k of ['a', 'b', 'c']) cache.set(k, 1)
    expect(cache.size).toBe(3)
    expect([...cache.keys()].sort()).toEqual(['a', 'b', 'c'])
    // 'a' read: 'b' is now the least recently used
    expect(cache.get('a')).toBe(1)
    cache.set('d', 1)
    expect(cache.size).toBe(3)
    expect(cache.has('b')).toBe(false)
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd'])
    // a key set again is not a new entry
    cache.set('d', 2)
    expect(cache.size).toBe(3)
  })

  it('takes the options it passes on (a TTL)', () => {
    // (a start of 0 is lru-cache's "no TTL": the clock starts later)
    let now = 5000
    const cache = boundedLru<string, number>(2, {
      ttl: 1000,
      ttlAutopurge: false,
      // read the clock at every look (lru-cache otherwise keeps one reading for 1 ms)
      ttlResolution: 0,
      perf: { now: () => now },
    })
    cache.set('a', 1)
    now = 5999
    expect(cache.get('a')).toBe(1)
    now = 6001
    expect(cache.get('a')).toBeUndefined()
  })

  it('allocates as it fills, not for its bound when it is made', () => {
    const allocated = (make: () => unknown) => {
      // kept until measured
      const kept: unknown[] = []
      const before = process.memoryUsage()
      for (let i = 0; i < 10; i++) kept.push(make())
      const after = process.memoryUsage()
      return after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers
    }
    // lru-cache's own bound: ~2.7 MiB a cache of 100,000 entries, before one is set
    expect(allocated(() => new LRUCache({ max: 100_000 }))).toBeGreaterThan(10 * 2 ** 20)
    expect(allocated(() => boundedLru(100_000))).toBeLessThan(2 ** 20)
    // and one filled to its bound holds no more than its bound
    const full = boundedLru<number, number>(100_000)
    for (let i = 0; i < 100_001; i++) full.set(i, i)
    expect(full.size).toBe(100_000)
    expect(full.has(0)).toBe(false)
  })
})
