import { createHmac, generateKeyPairSync, type KeyObject, randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import type { AppError } from '../../../src/errors.ts'
import { JWS_ALGORITHMS } from '../../../src/ops/jwt/algorithms.ts'
import { decodeJwt } from '../../../src/ops/jwt/decode.ts'
import { type SignInput, signJwt } from '../../../src/ops/jwt/sign.ts'
import { verifyJwt } from '../../../src/ops/jwt/verify.ts'

type Pair = { publicKey: KeyObject; privateKey: KeyObject }
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
const PAIRS: Record<string, Pair> = {
  rsa,
  prime256v1: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  secp384r1: generateKeyPairSync('ec', { namedCurve: 'P-384' }),
  secp521r1: generateKeyPairSync('ec', { namedCurve: 'P-521' }),
  ed25519: generateKeyPairSync('ed25519'),
}
const pkcs8 = (k: KeyObject) => k.export({ type: 'pkcs8', format: 'pem' }) as string
const spki = (k: KeyObject) => k.export({ type: 'spki', format: 'pem' }) as string

async function rejects(input: SignInput): Promise<AppError> {
  try {
    await signJwt(input)
  } catch (err) {
    return err as AppError
  }
  throw new Error('expected a 4xx AppError')
}

describe('jwt sign → verify round trips, every allowed algorithm', () => {
  for (const alg of JWS_ALGORITHMS) {
    it(alg.name, async () => {
      const payload = { sub: 'u1', role: ['a', 'b'], n: 1.5 }
      if (alg.kind === 'secret') {
        const secret = randomBytes(alg.min_secret_bytes!).toString('base64url')
        const { token } = await signJwt({
          payload,
          algorithm: alg.name,
          secret,
          secret_encoding: 'base64url',
        })
        const verified = await verifyJwt({
          token,
          secret,
          secret_encoding: 'base64url',
          algorithms: [alg.name],
        })
        expect(verified).toMatchObject({ valid: true, header: { alg: alg.name, typ: 'JWT' }, payload })
        // independent check of the MAC with node:crypto
        const [h, p, s] = token.split('.') as [string, string, string]
        const hash = `sha${alg.name.slice(2)}`
        expect(
          createHmac(hash, Buffer.from(secret, 'base64url')).update(`${h}.${p}`).digest('base64url'),
        ).toBe(s)
        return
      }
      const pair = PAIRS[alg.curve ?? (alg.kind === 'rsa' ? 'rsa' : 'ed25519')]!
      const fromPem = await signJwt({ payload, algorithm: alg.name, private_key: pkcs8(pair.privateKey) })
      expect(await verifyJwt({ token: fromPem.token, public_key: spki(pair.publicKey) })).toMatchObject({
        valid: true,
        payload,
      })
      const jwk = pair.privateKey.export({ format: 'jwk' }) as Record<string, unknown>
      const fromJwk = await signJwt({ payload, algorithm: alg.name, private_key: jwk, header: { kid: 'k1' } })
      const publicJwk = { ...pair.publicKey.export({ format: 'jwk' }), kid: 'k1' }
      expect(await verifyJwt({ token: fromJwk.token, jwks: { keys: [publicJwk] } })).toMatchObject({
        valid: true,
        header: { alg: alg.name, kid: 'k1' },
      })
    })
  }
})

describe('jwt sign', () => {
  const secret = 'k'.repeat(32)

  it('sets iat, and exp/nbf relative to it; issuer, audience and subject become claims', async () => {
    const before = Math.floor(Date.now() / 1000)
    const { token } = await signJwt({
      payload: { scope: 'read' },
      algorithm: 'HS256',
      secret,
      expires_in: '2h',
      not_before: 60,
      issuer: 'https://issuer.example',
      audience: ['api'],
      subject: 'u1',
    })
    const claims = decodeJwt({ token }).payload as Record<string, number>
    expect(claims.iat).toBeGreaterThanOrEqual(before)
    expect(claims.exp! - claims.iat!).toBe(7200)
    expect(claims.nbf! - claims.iat!).toBe(60)
    expect(claims).toMatchObject({ scope: 'read', iss: 'https://issuer.example', aud: ['api'], sub: 'u1' })
    expect(Object.keys(claims)).toEqual(['scope', 'iat', 'exp', 'nbf', 'iss', 'aud', 'sub'])
  })

  it('keeps a payload iat, and a "__proto__" claim as a claim', async () => {
    const payload = JSON.parse('{"iat": 5, "__proto__": {"admin": true}}') as Record<string, unknown>
    const { token } = await signJwt({ payload, algorithm: 'HS256', secret })
    const decoded = decodeJwt({ token })
    expect(Buffer.from(token.split('.')[1]!, 'base64url').toString()).toBe(
      '{"iat":5,"__proto__":{"admin":true}}',
    )
    expect(Object.hasOwn(decoded.payload as object, '__proto__')).toBe(true)
  })

  it('refuses HMAC secrets shorter than the hash (RFC 7518 §3.2) without echoing them', async () => {
    const err = await rejects({ payload: {}, algorithm: 'HS256', secret: 'your-256-bit-secret' })
    expect(err).toMatchObject({
      code: 'ERR_INVALID_KEY_MATERIAL',
      details: { field: 'secret', min_bytes: 32 },
    })
    expect(JSON.stringify({ m: err.message, d: err.details })).not.toContain('your-256')
    expect(
      (await rejects({ payload: {}, algorithm: 'HS512', secret: 'x'.repeat(63) })).details,
    ).toMatchObject({
      min_bytes: 64,
    })
  })

  it('never signs alg none; unknown algorithms are ERR_UNSUPPORTED_ALGORITHM', async () => {
    for (const algorithm of ['none', 'None', 'HS999', 'hs256', 'RS1']) {
      const err = await rejects({ payload: {}, algorithm, secret })
      expect(err.code).toBe('ERR_UNSUPPORTED_ALGORITHM')
    }
  })

  it('the key must match the algorithm family', async () => {
    const ecKey = pkcs8(PAIRS.prime256v1!.privateKey)
    const cases: [SignInput, string][] = [
      [{ payload: {}, algorithm: 'RS256', private_key: ecKey }, 'private_key'],
      [{ payload: {}, algorithm: 'ES384', private_key: ecKey }, 'private_key'],
      [{ payload: {}, algorithm: 'RS256', secret }, 'secret'],
      [{ payload: {}, algorithm: 'RS256' }, 'private_key'],
      [{ payload: {}, algorithm: 'HS256', private_key: ecKey }, 'private_key'],
      [{ payload: {}, algorithm: 'HS256' }, 'secret'],
      [{ payload: {}, algorithm: 'ES256', private_key: spki(PAIRS.prime256v1!.publicKey) }, 'private_key'],
      [{ payload: {}, algorithm: 'EdDSA', private_key: { kty: 'oct', k: 'AAAA' } }, 'private_key'],
      [
        { payload: {}, algorithm: 'EdDSA', private_key: { kty: 'OKP', crv: 'Ed25519', x: 'AAAA' } },
        'private_key',
      ],
    ]
    for (const [input, field] of cases) {
      expect(await rejects(input)).toMatchObject({ code: 'ERR_INVALID_KEY_MATERIAL', details: { field } })
    }
  })

  it('refuses 1024-bit RSA and encrypted private keys', async () => {
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 })
    expect(
      await rejects({ payload: {}, algorithm: 'RS256', private_key: pkcs8(weak.privateKey) }),
    ).toMatchObject({
      code: 'ERR_INVALID_KEY_MATERIAL',
      details: { modulus_bits: 1024 },
    })
    const encrypted = rsa.privateKey.export({
      type: 'pkcs8',
      format: 'pem',
      cipher: 'aes-256-cbc',
      passphrase: 'pw',
    }) as string
    expect((await rejects({ payload: {}, algorithm: 'RS256', private_key: encrypted })).code).toBe(
      'ERR_INVALID_KEY_MATERIAL',
    )
  })

  it('refuses ambiguous or unsupported options', async () => {
    const base = { algorithm: 'HS256', secret }
    expect(await rejects({ ...base, payload: { exp: 1 }, expires_in: 60 })).toMatchObject({
      code: 'ERR_VALIDATION',
      details: { issues: [{ path: 'expires_in' }] },
    })
    expect((await rejects({ ...base, payload: { sub: 'a' }, subject: 'b' })).code).toBe('ERR_VALIDATION')
    expect((await rejects({ ...base, payload: {}, header: { alg: 'HS512' } })).code).toBe('ERR_VALIDATION')
    expect((await rejects({ ...base, payload: {}, header: { crit: ['exp'] } })).code).toBe('ERR_VALIDATION')
    expect((await rejects({ ...base, payload: {}, expires_in: 'soon' })).code).toBe('ERR_VALIDATION')
    expect((await rejects({ ...base, payload: {}, expires_in: '200y' })).code).toBe('ERR_VALIDATION')
    let deep: unknown = 1
    for (let i = 0; i < 200; i++) deep = [deep]
    expect((await rejects({ ...base, payload: { deep } })).code).toBe('ERR_VALIDATION')
  })

  it('header: typ defaults to JWT, may be replaced, kid passes through', async () => {
    const { token } = await signJwt({
      payload: {},
      algorithm: 'HS256',
      secret,
      header: { typ: 'at+jwt', kid: 'key-1', alg: 'HS256' },
    })
    expect(decodeJwt({ token }).header).toEqual({ typ: 'at+jwt', kid: 'key-1', alg: 'HS256' })
  })
})
