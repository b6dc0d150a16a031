import { describe, expect, it } from 'vitest'
import { ownBytes, ownsBuffer } from '../../src/lib/own-bytes.ts'

describe('ownBytes: bytes that may move to another thread', () => {
  it('keeps bytes that own their whole buffer', () => {
    const whole = new Uint8Array([1, 2, 3])
    expect(ownsBuffer(whole)).toBe(true)
    expect(ownBytes(whole)).toBe(whole)
    const empty = new Uint8Array(0)
    expect(ownBytes(empty)).toBe(empty)
  })

  it("copies a slice of Node's shared pool or of a larger buffer into a buffer of its own", () => {
    const pooled = Buffer.from('abc')
    const larger = new Uint8Array([9, 8, 7, 6]).subarray(1, 3)
    for (const view of [pooled, larger]) {
      expect(ownsBuffer(view)).toBe(false)
      const own = ownBytes(view)
      expect(own).not.toBe(view)
      expect(own.buffer).not.toBe(view.buffer)
      expect(own.byteLength).toBe(own.buffer.byteLength)
      expect([...own]).toEqual([...view])
    }
  })
})
