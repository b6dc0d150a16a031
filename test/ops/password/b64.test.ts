import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  ab64Decode,
  ab64Encode,
  b64Decode,
  b64Encode,
  bcrypt64Decode,
  bcrypt64Encode,
} from '../../../src/ops/password/b64.ts'

describe('PHC B64', () => {
  it('round-trips any bytes, without padding, in the standard alphabet', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 80 }), (bytes) => {
        const text = b64Encode(bytes)
        expect(text).toMatch(/^[A-Za-z0-9+/]*$/)
        expect(text.length % 4).not.toBe(1)
        expect(b64Decode(text)).toEqual(Buffer.from(bytes))
      }),
    )
  })

  it('has one spelling per value: padding, whitespace, base64url, a length of 1 mod 4 and set trailing bits are refused', () => {
    expect(b64Decode('c29tZXNhbHQ')).toEqual(Buffer.from('somesalt'))
    for (const bad of [
      'c29tZXNhbHQ=',
      'c29tZXNh bHQ',
      'c29tZXNhbHR',
      'c29tZXNhbHf',
      '-_8',
      'AAAAA',
      'A',
      '!!!!',
    ]) {
      expect(b64Decode(bad)).toBeUndefined()
    }
  })
})

describe("passlib's ab64", () => {
  it('writes "." for "+", and reads both', () => {
    const bytes = Buffer.from('fb', 'hex')
    expect(b64Encode(bytes)).toBe('+w')
    expect(ab64Encode(bytes)).toBe('.w')
    expect(ab64Decode('.w')).toEqual(bytes)
    expect(ab64Decode('+w')).toEqual(bytes)
  })
})

describe("bcrypt's radix-64", () => {
  it('round-trips, in the ./A-Za-z0-9 alphabet', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        const text = bcrypt64Encode(bytes)
        expect(text).toMatch(/^[./A-Za-z0-9]*$/)
        expect(bcrypt64Decode(text)).toEqual(Buffer.from(bytes))
      }),
    )
  })

  it("reads OpenBSD's salts: 16 zero bytes are 22 dots, and only canonical last characters are taken", () => {
    expect(bcrypt64Encode(Buffer.alloc(16))).toBe('......................')
    expect(bcrypt64Decode('CCCCCCCCCCCCCCCCCCCCC.')?.length).toBe(16)
    // the 22nd character carries 2 bits: ".", "O", "e" and "u" only
    expect(bcrypt64Decode('CCCCCCCCCCCCCCCCCCCCCC')).toBeUndefined()
    expect(bcrypt64Decode('CCCCCCCCCCCCCCCCCCCCC+')).toBeUndefined()
  })
})
