import { describe, expect, it } from 'vitest'
import { ALGORITHMS, hash } from '../../../src/ops/hash/hash.ts'

// FIPS 180-4 and FIPS 202 examples ("" and "abc"), RFC 1321 for md5.
const VECTORS: Record<string, { empty: string; abc: string }> = {
  md5: { empty: 'd41d8cd98f00b204e9800998ecf8427e', abc: '900150983cd24fb0d6963f7d28e17f72' },
  sha1: {
    empty: 'da39a3ee5e6b4b0d3255bfef95601890afd80709',
    abc: 'a9993e364706816aba3e25717850c26c9cd0d89d',
  },
  sha224: {
    empty: 'd14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f',
    abc: '23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7',
  },
  sha256: {
    empty: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    abc: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  },
  sha384: {
    empty: '38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b',
    abc: 'cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7',
  },
  sha512: {
    empty:
      'cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e',
    abc: 'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
  },
  'sha512-224': {
    empty: '6ed0dd02806fa89e25de060c19d3ac86cabb87d6a0ddd05c333b84f4',
    abc: '4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa',
  },
  'sha512-256': {
    empty: 'c672b8d1ef56ed28ab87c3622c5114069bdd3ad7b8f9737498d0c01ecef0967a',
    abc: '53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23',
  },
  'sha3-224': {
    empty: '6b4e03423667dbb73b6e15454f0eb1abd4597f9a1b078e3f5b5a6bc7',
    abc: 'e642824c3f8cf24ad09234ee7d3c766fc9a3a5168d0c94ad73b46fdf',
  },
  'sha3-256': {
    empty: 'a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a',
    abc: '3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532',
  },
  'sha3-384': {
    empty: '0c63a75b845e4f7d01107d852e4c2485c51a50aaaa94fc61995e71bbee983a2ac3713831264adb47fb6bd1e058d5f004',
    abc: 'ec01498288516fc926459f58e2c6ad8df9b473cb0fc08c2596da7cf0e49be4b298d88cea927ac7f539f1edf228376d25',
  },
  'sha3-512': {
    empty:
      'a69f73cca23a9ac5c8b567dc185a756e97c982164fe25859e0d1dcc1475c80a615b2123af1f5f94c11e3e9402c3ac558f500199d95b6d3e301758586281dcd26',
    abc: 'b751850b1a57168a5693cd924b6b096e08f621827444f70d884f5d0240d2712e10e116e9192af3c91a7ec57647e3934057340b4cf408d5a56592f8274eec53f0',
  },
  shake128: { empty: '7f9c2ba4e88f827d616045507605853e', abc: '5881092dd818bf5cf8a3ddb793fbcba7' },
  shake256: {
    empty: '46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f',
    abc: '483366601360a8771c6863080cc4114d8db44530f8f1e1ee4f94ea37e78b5739',
  },
  crc32: { empty: '00000000', abc: '352441c2' },
}

describe('hash vectors', () => {
  for (const [algorithm, v] of Object.entries(VECTORS)) {
    it(`${algorithm}: "" and "abc"`, () => {
      expect(hash({ algorithm, input: '' }).digest).toBe(v.empty)
      expect(hash({ algorithm, input: 'abc' }).digest).toBe(v.abc)
    })
  }

  it('every algorithm of API.md is offered', () => {
    const names = ALGORITHMS.map((a) => a.name)
    for (const required of [...Object.keys(VECTORS), 'blake2b512', 'blake2s256', 'sm3']) {
      expect(names).toContain(required)
    }
    expect(ALGORITHMS.find((a) => a.name === 'md5')?.secure).toBe(false)
    expect(ALGORITHMS.find((a) => a.name === 'sha1')?.secure).toBe(false)
    expect(ALGORITHMS.find((a) => a.name === 'sha256')?.secure).toBe(true)
  })

  it('shake length in bytes', () => {
    const r = hash({ algorithm: 'shake256', input: 'abc', length: 64 })
    expect(r.digest).toHaveLength(128)
    expect(r.digest.startsWith(VECTORS.shake256!.abc)).toBe(true)
  })

  it('encodings: hex and base64 input, base64url output', () => {
    expect(hash({ algorithm: 'sha256', input: '616263', input_encoding: 'hex' }).digest).toBe(
      VECTORS.sha256!.abc,
    )
    expect(hash({ algorithm: 'sha256', input: 'YWJj', input_encoding: 'base64' }).input_bytes).toBe(3)
    expect(hash({ algorithm: 'sha256', input: 'abc', output_encoding: 'base64url' }).digest).toBe(
      Buffer.from(VECTORS.sha256!.abc, 'hex').toString('base64url'),
    )
  })

  it('text is hashed as its UTF-8 bytes, never normalized', () => {
    const composed = hash({ algorithm: 'sha256', input: '\u00e9' })
    const decomposed = hash({ algorithm: 'sha256', input: 'e\u0301' })
    expect(composed.input_bytes).toBe(2)
    expect(decomposed.input_bytes).toBe(3)
    expect(composed.digest).not.toBe(decomposed.digest)
  })

  it('refuses a lone surrogate with its position', () => {
    expect(() => hash({ algorithm: 'sha256', input: 'ab\ud800c' })).toThrowError(
      expect.objectContaining({
        code: 'ERR_INVALID_ENCODING',
        details: expect.objectContaining({ position: 2 }),
      }),
    )
  })

  it('refuses bad hex with its position, unknown algorithms, and length on fixed-size digests', () => {
    expect(() => hash({ algorithm: 'sha256', input: 'abzz', input_encoding: 'hex' })).toThrowError(
      expect.objectContaining({
        code: 'ERR_INVALID_ENCODING',
        details: expect.objectContaining({ position: 2 }),
      }),
    )
    expect(() => hash({ algorithm: 'nope', input: '' })).toThrowError(
      expect.objectContaining({ code: 'ERR_UNSUPPORTED_ALGORITHM' }),
    )
    expect(() => hash({ algorithm: 'sha256', input: '', length: 4 })).toThrowError(
      expect.objectContaining({ code: 'ERR_VALIDATION' }),
    )
  })
})
