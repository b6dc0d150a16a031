import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { HMAC_ALGORITHMS, hmac, verifyHmac } from '../../../src/ops/hmac/hmac.ts'

const hex = (byte: number, count: number) => byte.toString(16).padStart(2, '0').repeat(count)
const text = (s: string) => Buffer.from(s, 'utf8').toString('hex')

// RFC 4231 §4.2–4.8, all seven test cases; key and data as hex.
const RFC4231 = [
  {
    n: 1,
    key: hex(0x0b, 20),
    data: text('Hi There'),
    sha224: '896fb1128abbdf196832107cd49df33f47b4b1169912ba4f53684b22',
    sha256: 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
    sha384:
      'afd03944d84895626b0825f4ab46907f15f9dadbe4101ec682aa034c7cebc59cfaea9ea9076ede7f4af152e8b2fa9cb6',
    sha512:
      '87aa7cdea5ef619d4ff0b4241a1d6cb02379f4e2ce4ec2787ad0b30545e17cdedaa833b7d6b8a702038b274eaea3f4e4be9d914eeb61f1702e696c203a126854',
  },
  {
    n: 2,
    key: text('Jefe'),
    data: text('what do ya want for nothing?'),
    sha224: 'a30e01098bc6dbbf45690f3a7e9e6d0f8bbea2a39e6148008fd05e44',
    sha256: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    sha384:
      'af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649',
    sha512:
      '164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fdcaeab1a34d4a6b4b636e070a38bce737',
  },
  {
    n: 3,
    key: hex(0xaa, 20),
    data: hex(0xdd, 50),
    sha224: '7fb3cb3588c6c1f6ffa9694d7d6ad2649365b0c1f65d69d1ec8333ea',
    sha256: '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe',
    sha384:
      '88062608d3e6ad8a0aa2ace014c8a86f0aa635d947ac9febe83ef4e55966144b2a5ab39dc13814b94e3ab6e101a34f27',
    sha512:
      'fa73b0089d56a284efb0f0756c890be9b1b5dbdd8ee81a3655f83e33b2279d39bf3e848279a722c806b485a47e67c807b946a337bee8942674278859e13292fb',
  },
  {
    n: 4,
    key: Buffer.from(Array.from({ length: 25 }, (_, i) => i + 1)).toString('hex'),
    data: hex(0xcd, 50),
    sha224: '6c11506874013cac6a2abc1bb382627cec6a90d86efc012de7afec5a',
    sha256: '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b',
    sha384:
      '3e8a69b7783c25851933ab6290af6ca77a9981480850009cc5577c6e1f573b4e6801dd23c4a7d679ccf8a386c674cffb',
    sha512:
      'b0ba465637458c6990e5a8c5f61d4af7e576d97ff94b872de76f8050361ee3dba91ca5c11aa25eb4d679275cc5788063a5f19741120c4f2de2adebeb10a298dd',
  },
  {
    // truncated to 128 bits in the RFC: compare the first 16 bytes
    n: 5,
    key: hex(0x0c, 20),
    data: text('Test With Truncation'),
    sha224: '0e2aea68a90c8d37c988bcdb9fca6fa8',
    sha256: 'a3b6167473100ee06e0c796c2955552b',
    sha384: '3abf34c3503b2a23a46efc619baef897',
    sha512: '415fad6271580a531d4179bc891d87a6',
  },
  {
    n: 6,
    key: hex(0xaa, 131),
    data: text('Test Using Larger Than Block-Size Key - Hash Key First'),
    sha224: '95e9a0db962095adaebe9b2d6f0dbce2d499f112f2d2b7273fa6870e',
    sha256: '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
    sha384:
      '4ece084485813e9088d2c63a041bc5b44f9ef1012a2b588f3cd11f05033ac4c60c2ef6ab4030fe8296248df163f44952',
    sha512:
      '80b24263c7c1a3ebb71493c1dd7be8b49b46d1f41b4aeec1121b013783f8f3526b56d037e05f2598bd0fd2215d6a1e5295e64f73f63f0aec8b915a985d786598',
  },
  {
    n: 7,
    key: hex(0xaa, 131),
    data: text(
      'This is a test using a larger than block-size key and a larger than block-size data. ' +
        'The key needs to be hashed before being used by the HMAC algorithm.',
    ),
    sha224: '3a854166ac5d9f023f54d517d0b39dbd946770db9c2b95c9f6f565d1',
    sha256: '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
    sha384:
      '6617178e941f020d351e2f254e8fd32c602420feb0b8fb9adccebb82461e99c5a678cc31e799176d3860e6110c46523e',
    sha512:
      'e37b6a775dc87dbaa4dfa9f96e5e3ffddebd71f8867289865df5a32d20cdc944b6022cac3c4982b10d5eeb55c3e4de15134676fb6de0446065c97440fa8c6a58',
  },
] as const

describe('HMAC: RFC 4231 test cases 1–7', () => {
  for (const tc of RFC4231) {
    for (const algorithm of ['sha224', 'sha256', 'sha384', 'sha512'] as const) {
      it(`case ${tc.n}, ${algorithm}`, () => {
        const params = {
          algorithm,
          input: tc.data,
          key: tc.key,
          input_encoding: 'hex',
          key_encoding: 'hex',
        } as const
        const { digest } = hmac(params)
        const expected = tc[algorithm]
        if (tc.n === 5) {
          expect(digest.slice(0, 32)).toBe(expected)
          // a truncated MAC is not the MAC: verify compares full-length digests only
          expect(verifyHmac({ ...params, digest: expected }).valid).toBe(false)
        } else {
          expect(digest).toBe(expected)
        }
        expect(verifyHmac({ ...params, digest }).valid).toBe(true)
      })
    }
  }
})

describe('HMAC', () => {
  it('RFC 2202 case 1 for md5 and sha1', () => {
    const md5 = { algorithm: 'md5', input: 'Hi There', key: hex(0x0b, 16), key_encoding: 'hex' } as const
    expect(hmac(md5).digest).toBe('9294727a3638bb1c13f48ef8158bfc9d')
    const sha1 = { algorithm: 'SHA1', input: 'Hi There', key: hex(0x0b, 20), key_encoding: 'hex' } as const
    expect(hmac(sha1)).toEqual({
      algorithm: 'sha1',
      digest: 'b617318655057264e28bc0b6fb378c8ef146be00',
      output_encoding: 'hex',
    })
  })

  it('offers every fixed-size hash of the runtime, and each one works', () => {
    for (const name of [
      'sha512-224',
      'sha512-256',
      'sha3-256',
      'sha3-512',
      'sm3',
      'blake2b512',
      'blake2s256',
    ]) {
      expect(HMAC_ALGORITHMS).toContain(name)
    }
    expect(HMAC_ALGORITHMS).not.toContain('shake256')
    expect(HMAC_ALGORITHMS).not.toContain('crc32')
    for (const algorithm of HMAC_ALGORITHMS) {
      expect(hmac({ algorithm, input: 'x', key: 'k' }).digest).toMatch(/^[0-9a-f]{32,}$/)
    }
  })

  it('encodes the output as asked, and takes text as UTF-8', () => {
    const base = { algorithm: 'sha256', input: 'what do ya want for nothing?', key: 'Jefe' }
    const bytes = Buffer.from(RFC4231[1].sha256, 'hex')
    expect(hmac({ ...base, output_encoding: 'base64' }).digest).toBe(bytes.toString('base64'))
    expect(hmac({ ...base, output_encoding: 'base64url' }).digest).toBe(bytes.toString('base64url'))
    expect(
      hmac({ ...base, input: Buffer.from(base.input).toString('base64'), input_encoding: 'base64' }).digest,
    ).toBe(RFC4231[1].sha256)
  })

  it('verify: accepts upper-case hex and base64, refuses tampering and wrong lengths', () => {
    const base = { algorithm: 'sha256', input: 'what do ya want for nothing?', key: 'Jefe' }
    const good = RFC4231[1].sha256
    expect(verifyHmac({ ...base, digest: good.toUpperCase() }).valid).toBe(true)
    expect(
      verifyHmac({ ...base, digest: Buffer.from(good, 'hex').toString('base64'), digest_encoding: 'base64' })
        .valid,
    ).toBe(true)
    const tampered = (good.startsWith('0') ? '1' : '0') + good.slice(1)
    expect(verifyHmac({ ...base, digest: tampered }).valid).toBe(false)
    expect(verifyHmac({ ...base, digest: good.slice(0, -2) }).valid).toBe(false)
    expect(verifyHmac({ ...base, digest: `${good}00` }).valid).toBe(false)
    expect(verifyHmac({ ...base, digest: '' }).valid).toBe(false)
  })

  it('verify: a digest that does not decode is ERR_INVALID_ENCODING pointing at it', () => {
    expect(() => verifyHmac({ algorithm: 'sha256', input: 'a', key: 'k', digest: 'zz' })).toThrowError(
      expect.objectContaining({
        code: 'ERR_INVALID_ENCODING',
        details: { field: 'digest', encoding: 'hex', position: 0 },
      }),
    )
  })

  it('refuses unknown algorithms and bad keys without echoing the key', () => {
    expect(() => hmac({ algorithm: 'shake256', input: '', key: 'k' })).toThrowError(
      expect.objectContaining({ code: 'ERR_UNSUPPORTED_ALGORITHM' }),
    )
    const secret = 'top-secret-\ud800-value'
    try {
      hmac({ algorithm: 'sha256', input: 'x', key: secret })
      expect.unreachable()
    } catch (err) {
      expect(err).toMatchObject({ code: 'ERR_INVALID_ENCODING', details: { field: 'key', position: 11 } })
      expect(
        JSON.stringify({ m: (err as Error).message, d: (err as { details: unknown }).details }),
      ).not.toContain('top-secret')
    }
  })

  it('property: verify accepts its own MAC and refuses any single-bit change', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.nat(), (input, key, bit) => {
        const params = { algorithm: 'sha256', input, key }
        const { digest } = hmac(params)
        expect(verifyHmac({ ...params, digest }).valid).toBe(true)
        const bytes = Buffer.from(digest, 'hex')
        const i = bit % (bytes.length * 8)
        bytes[i >> 3]! ^= 1 << (i & 7)
        expect(verifyHmac({ ...params, digest: bytes.toString('hex') }).valid).toBe(false)
      }),
      { numRuns: 200 },
    )
  })
})
