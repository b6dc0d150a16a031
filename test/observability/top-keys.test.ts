import { describe, expect, it } from 'vitest'
import { OTHER_KEYS, TopKeys } from '../../src/observability/top-keys.ts'

function clock(start = 1_000_000) {
  let t = start
  return { now: () => t, advance: (ms: number) => (t += ms) }
}

describe('TopKeys', () => {
  it('rates the top keys per second over the window, by outcome, the rest as "other"', () => {
    const c = clock()
    const keys = new TopKeys({ outcomes: ['valid', 'invalid'], top: 2, windowMs: 60_000, now: c.now })
    for (let i = 0; i < 120; i++) keys.add('key_a', 'invalid')
    for (let i = 0; i < 60; i++) keys.add('key_b', 'valid')
    for (let i = 0; i < 6; i++) keys.add('key_c', 'valid')
    keys.add('key_d', 'invalid')
    expect(keys.rates()).toEqual([
      { keyId: 'key_a', perSecond: [0, 2] },
      { keyId: 'key_b', perSecond: [1, 0] },
      { keyId: OTHER_KEYS, perSecond: [0.1, 1 / 60] },
    ])
  })

  it('forgets what left the window', () => {
    const c = clock()
    const keys = new TopKeys({ outcomes: ['valid'], top: 5, windowMs: 60_000, slots: 6, now: c.now })
    keys.add('key_a', 'valid')
    c.advance(30_000)
    keys.add('key_b', 'valid')
    c.advance(40_000)
    expect(keys.rates().map((r) => r.keyId)).toEqual(['key_b'])
    c.advance(30_000)
    expect(keys.rates()).toEqual([])
  })

  it('holds at most `capacity` ids a slot, counting the ones past it as "other"', () => {
    const c = clock()
    const keys = new TopKeys({ outcomes: ['valid'], top: 100, capacity: 3, now: c.now })
    for (let i = 0; i < 50; i++) keys.add(`key_${i}`, 'valid')
    const rates = keys.rates()
    expect(rates.length).toBe(4)
    expect(rates.at(-1)).toEqual({ keyId: OTHER_KEYS, perSecond: [47 / 60] })
  })

  it('never names more than `top` keys, however many there are', () => {
    const keys = new TopKeys({ outcomes: ['valid', 'invalid'], top: 10 })
    for (let i = 0; i < 5000; i++) keys.add(`key_${i % 700}`, i % 3 ? 'valid' : 'invalid')
    const rates = keys.rates()
    expect(rates.length).toBe(11)
    expect(rates.filter((r) => r.keyId !== OTHER_KEYS).length).toBe(10)
  })
})
