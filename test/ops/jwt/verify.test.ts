import { createHmac, generateKeyPairSync, type KeyObject } from 'node:crypto'
import { generate } from 'selfsigned'
import { beforeAll, describe, expect, it } from 'vitest'
import type { AppError } from '../../../src/errors.ts'
import { type VerifyInput, type VerifyResult, verifyJwt } from '../../../src/ops/jwt/verify.ts'

// RFC 7515 Appendix A.1: HS256 with a symmetric JWK; exp 1300819380 (2011-03-22T18:43:00Z).
const A1_TOKEN =
  'eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9' +
  '.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ' +
  '.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'
const A1_K = 'AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow'
const A1_CLAIMS = { iss: 'joe', exp: 1300819380, 'http://example.com/is_root': true }
// RFC 7515 Appendix A.2: RS256 with the RFC's 2048-bit RSA key (public part).
const A2_TOKEN =
  'eyJhbGciOiJSUzI1NiJ9' +
  '.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ' +
  '.cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4' +
  'BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqv' +
  'hJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw'
const A2_JWK = {
  kty: 'RSA',
  n:
    'ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMs' +
    'D1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdV' +
    'MTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ',
  e: 'AQAB',
}
// RFC 7519 §6.1, an Unsecured JWT
const UNSECURED =
  'eyJhbGciOiJub25lIn0.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.'
const JWT_IO =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ' +
  '.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'
const BEFORE_A1_EXP = 1300819380 - 60
const NOW = 1_700_000_000

const seg = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')

// An HS* token built by hand with node:crypto, independent of the code under test.
function hsToken(header: object, payload: unknown, secret: string | Buffer, hash = 'sha256'): string {
  const signed = `${seg(header)}.${seg(payload)}`
  return `${signed}.${createHmac(hash, secret).update(signed).digest('base64url')}`
}

const pem = (key: KeyObject) => key.export({ type: 'spki', format: 'pem' }) as string
const reasonOf = (r: VerifyResult) => (r.valid ? 'valid' : r.reason.code)

async function rejects(input: VerifyInput): Promise<AppError> {
  try {
    await verifyJwt(input)
  } catch (err) {
    return err as AppError
  }
  throw new Error('expected a 4xx AppError')
}

describe('jwt verify: standards vectors', () => {
  it('RFC 7515 A.1 (HS256, JWK key as base64url secret): valid before exp, expired after', async () => {
    const input = { token: A1_TOKEN, secret: A1_K, secret_encoding: 'base64url' } as const
    expect(await verifyJwt({ ...input, at: BEFORE_A1_EXP })).toEqual({
      valid: true,
      header: { typ: 'JWT', alg: 'HS256' },
      payload: A1_CLAIMS,
    })
    expect(await verifyJwt(input)).toEqual({
      valid: false,
      reason: { code: 'expired', message: expect.any(String), claim: 'exp' },
    })
    expect(reasonOf(await verifyJwt({ ...input, at: '2011-03-22T18:43:00Z' }))).toBe('expired')
    expect(
      reasonOf(await verifyJwt({ ...input, at: '2011-03-22T18:43:00Z', clock_tolerance_seconds: 1 })),
    ).toBe('valid')
  })

  it('RFC 7515 A.1 through a local JWKS holding the oct JWK', async () => {
    const jwks = { keys: [{ kty: 'oct', k: A1_K }] }
    expect(reasonOf(await verifyJwt({ token: A1_TOKEN, jwks, at: BEFORE_A1_EXP }))).toBe('valid')
  })

  it('RFC 7515 A.2 (RS256) with the RFC public JWK', async () => {
    const result = await verifyJwt({ token: A2_TOKEN, public_key: A2_JWK, at: BEFORE_A1_EXP })
    expect(result).toEqual({ valid: true, header: { alg: 'RS256' }, payload: A1_CLAIMS })
    expect(reasonOf(await verifyJwt({ token: A2_TOKEN, public_key: A2_JWK }))).toBe('expired')
  })

  it('jwt.io sample with "your-256-bit-secret"; any other secret fails the signature', async () => {
    expect(await verifyJwt({ token: JWT_IO, secret: 'your-256-bit-secret' })).toEqual({
      valid: true,
      header: { alg: 'HS256', typ: 'JWT' },
      payload: { sub: '1234567890', name: 'John Doe', iat: 1516239022 },
    })
    expect(reasonOf(await verifyJwt({ token: JWT_IO, secret: 'your-256-bit-secreT' }))).toBe(
      'signature_invalid',
    )
  })

  it('RFC 7519 §6.1 unsecured JWT is never valid, with or without a key', async () => {
    expect(reasonOf(await verifyJwt({ token: UNSECURED }))).toBe('alg_none')
    expect(reasonOf(await verifyJwt({ token: UNSECURED, secret: 'x', at: 0 }))).toBe('alg_none')
    const none = `${seg({ alg: 'NONE' })}.${seg({ a: 1 })}.`
    expect(reasonOf(await verifyJwt({ token: none, public_key: A2_JWK }))).toBe('alg_none')
  })
})

describe('jwt verify: security', () => {
  let rsa: { publicKey: KeyObject; privateKey: KeyObject }
  beforeAll(() => {
    rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
  })

  it('algorithm confusion: an HS256 token keyed with the RSA public key PEM is refused', async () => {
    const publicPem = pem(rsa.publicKey)
    const forged = hsToken({ alg: 'HS256', typ: 'JWT' }, { sub: 'admin', exp: NOW + 60 }, publicPem)
    const result = await verifyJwt({ token: forged, public_key: publicPem, at: NOW })
    expect(result).toMatchObject({ valid: false, reason: { code: 'key_algorithm_mismatch' } })
    const jwk = rsa.publicKey.export({ format: 'jwk' }) as Record<string, unknown>
    expect(reasonOf(await verifyJwt({ token: forged, public_key: jwk, at: NOW }))).toBe(
      'key_algorithm_mismatch',
    )
    expect(reasonOf(await verifyJwt({ token: forged, jwks: { keys: [jwk] }, at: NOW }))).toBe(
      'no_matching_key',
    )
  })

  it('the reverse: an RS256 token checked with a secret is refused', async () => {
    expect(reasonOf(await verifyJwt({ token: A2_TOKEN, secret: 'x'.repeat(32), at: BEFORE_A1_EXP }))).toBe(
      'key_algorithm_mismatch',
    )
  })

  it('ES256 is refused with a P-384 key (the curve is part of the algorithm)', async () => {
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
    const token = `${seg({ alg: 'ES256' })}.${seg({ a: 1 })}.${'A'.repeat(86)}`
    expect(reasonOf(await verifyJwt({ token, public_key: pem(p384.publicKey) }))).toBe(
      'key_algorithm_mismatch',
    )
  })

  it('RSA keys under 2048 bits are ERR_INVALID_KEY_MATERIAL', async () => {
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 })
    const err = await rejects({ token: A2_TOKEN, public_key: pem(weak.publicKey) })
    expect(err).toMatchObject({
      code: 'ERR_INVALID_KEY_MATERIAL',
      details: { field: 'public_key', modulus_bits: 1024, min_bits: 2048 },
    })
    expect(err.message).toMatch(/2048/)
    const jwk = weak.publicKey.export({ format: 'jwk' })
    expect(await rejects({ token: A2_TOKEN, jwks: { keys: [A2_JWK, jwk] } })).toMatchObject({
      code: 'ERR_INVALID_KEY_MATERIAL',
      details: { field: 'jwks.keys.1', index: 1 },
    })
  })

  it('unusable key material is ERR_INVALID_KEY_MATERIAL and never echoed', async () => {
    const privatePem = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string
    const privateJwk = rsa.privateKey.export({ format: 'jwk' }) as Record<string, unknown>
    const cases: VerifyInput['public_key'][] = [
      'not a key at all',
      privatePem,
      privateJwk,
      { kty: 'oct', k: A1_K },
      { kty: 'RSA', n: 5 },
      pem(generateKeyPairSync('ec', { namedCurve: 'secp256k1' }).publicKey),
      pem(generateKeyPairSync('ed448').publicKey),
      pem(generateKeyPairSync('rsa-pss', { modulusLength: 2048 }).publicKey),
    ]
    for (const public_key of cases) {
      const err = await rejects({ token: A2_TOKEN, public_key })
      expect(err.code).toBe('ERR_INVALID_KEY_MATERIAL')
      const body = JSON.stringify({ message: err.message, details: err.details })
      expect(body).not.toContain('MII')
      expect(body).not.toContain(String(privateJwk.d).slice(0, 20))
    }
    expect((await rejects({ token: A1_TOKEN, secret: '' })).code).toBe('ERR_INVALID_KEY_MATERIAL')
    expect(await rejects({ token: A1_TOKEN, secret: 'zz', secret_encoding: 'hex' })).toMatchObject({
      code: 'ERR_INVALID_ENCODING',
      details: { field: 'secret', position: 0 },
    })
  })

  it('a malformed token is ERR_INVALID_JWT; the key source must be exactly one', async () => {
    expect(await rejects({ token: 'abc', secret: 'x' })).toMatchObject({
      code: 'ERR_INVALID_JWT',
      details: { part: 'structure' },
    })
    expect((await rejects({ token: JWT_IO })).code).toBe('ERR_VALIDATION')
    expect((await rejects({ token: JWT_IO, secret: 'x', public_key: A2_JWK })).code).toBe('ERR_VALIDATION')
  })

  it('algorithms allow-list', async () => {
    const input = { token: A2_TOKEN, public_key: A2_JWK, at: BEFORE_A1_EXP }
    expect(reasonOf(await verifyJwt({ ...input, algorithms: ['PS256', 'ES256'] }))).toBe(
      'algorithm_not_allowed',
    )
    expect(reasonOf(await verifyJwt({ ...input, algorithms: ['RS256'] }))).toBe('valid')
    expect(await rejects({ ...input, algorithms: ['none'] })).toMatchObject({
      code: 'ERR_UNSUPPORTED_ALGORITHM',
      details: { field: 'algorithms.0' },
    })
    const hs1 = hsToken({ alg: 'HS1' }, { a: 1 }, 'secret', 'sha1')
    expect(reasonOf(await verifyJwt({ token: hs1, secret: 'secret' }))).toBe('algorithm_not_allowed')
  })
})

describe('jwt verify: claims', () => {
  const secret = 's'.repeat(32)
  const verify = (payload: unknown, options: Partial<VerifyInput> = {}) =>
    verifyJwt({ token: hsToken({ alg: 'HS256' }, payload, secret), secret, at: NOW, ...options }).then((r) =>
      r.valid ? 'valid' : `${r.reason.code}${r.reason.claim ? `:${r.reason.claim}` : ''}`,
    )

  it('issuer, audience, subject', async () => {
    const claims = { iss: 'https://issuer.example', aud: ['api', 'web'], sub: 'u1' }
    expect(await verify(claims, { issuer: 'https://issuer.example', audience: 'web', subject: 'u1' })).toBe(
      'valid',
    )
    expect(await verify(claims, { issuer: ['a', 'https://issuer.example'] })).toBe('valid')
    expect(await verify(claims, { issuer: 'https://other.example' })).toBe('claim_mismatch:iss')
    expect(await verify(claims, { audience: ['mobile'] })).toBe('claim_mismatch:aud')
    expect(await verify(claims, { subject: 'u2' })).toBe('claim_mismatch:sub')
    expect(await verify({}, { issuer: 'x' })).toBe('missing_claim:iss')
  })

  it('required claims, nbf, exp types, max_token_age', async () => {
    expect(await verify({ a: 1 }, { required_claims: ['jti'] })).toBe('missing_claim:jti')
    expect(await verify({ nbf: NOW + 30 })).toBe('not_yet_valid:nbf')
    expect(await verify({ nbf: NOW + 30 }, { clock_tolerance_seconds: 30 })).toBe('valid')
    expect(await verify({ exp: 'tomorrow' })).toBe('invalid_claim:exp')
    expect(await verify({ iat: NOW - 7200 }, { max_token_age: '1h' })).toBe('too_old:iat')
    expect(await verify({ iat: NOW - 60 }, { max_token_age: 3600 })).toBe('valid')
    expect(await verify({ iat: NOW + 600 }, { max_token_age: '1h' })).toBe('issued_in_future:iat')
    expect(await verify({}, { max_token_age: 60 })).toBe('missing_claim:iat')
  })

  it('a signed payload that is not a claims set is invalid, not an error', async () => {
    expect(await verify('just text')).toBe('invalid_payload')
  })

  it('bad options are ERR_VALIDATION', async () => {
    const token = hsToken({ alg: 'HS256' }, {}, secret)
    expect(await rejects({ token, secret, max_token_age: 'soon' })).toMatchObject({
      code: 'ERR_VALIDATION',
      details: { issues: [{ path: 'max_token_age' }] },
    })
    expect((await rejects({ token, secret, max_token_age: '-1h' })).code).toBe('ERR_VALIDATION')
  })
})

describe('jwt verify: key sources', () => {
  it('a JWKS picks the key by kid, tries every fitting key without one, and skips enc/other-alg keys', async () => {
    const a = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const b = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const { SignJWT } = await import('jose')
    const jwkA = { ...a.publicKey.export({ format: 'jwk' }), kid: 'a' }
    const jwkB = { ...b.publicKey.export({ format: 'jwk' }), kid: 'b' }
    const withKid = await new SignJWT({ x: 1 })
      .setProtectedHeader({ alg: 'ES256', kid: 'b' })
      .sign(b.privateKey)
    const noKid = await new SignJWT({ x: 1 }).setProtectedHeader({ alg: 'ES256' }).sign(b.privateKey)
    const unknownKid = await new SignJWT({ x: 1 })
      .setProtectedHeader({ alg: 'ES256', kid: 'z' })
      .sign(b.privateKey)
    const jwks = { keys: [jwkA, jwkB, { kty: 'AKP', alg: 'ML-DSA-44', pub: 'x' }] }
    expect(reasonOf(await verifyJwt({ token: withKid, jwks }))).toBe('valid')
    expect(reasonOf(await verifyJwt({ token: noKid, jwks }))).toBe('valid')
    expect(reasonOf(await verifyJwt({ token: unknownKid, jwks }))).toBe('no_matching_key')
    expect(reasonOf(await verifyJwt({ token: withKid, jwks: { keys: [{ ...jwkB, use: 'enc' }] } }))).toBe(
      'no_matching_key',
    )
    expect(reasonOf(await verifyJwt({ token: withKid, jwks: { keys: [{ ...jwkB, alg: 'ES384' }] } }))).toBe(
      'no_matching_key',
    )
    expect(reasonOf(await verifyJwt({ token: withKid, jwks: { keys: [jwkA] } }))).toBe('no_matching_key')
    expect(reasonOf(await verifyJwt({ token: noKid, jwks: { keys: [jwkA] } }))).toBe('signature_invalid')
    expect(
      await rejects({ token: noKid, jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'bad' }] } }),
    ).toMatchObject({
      code: 'ERR_INVALID_KEY_MATERIAL',
      details: { index: 0 },
    })
  })

  it('an X.509 certificate PEM is accepted as public_key', async () => {
    const pems = await generate([{ name: 'commonName', value: 'anvil-test' }], {
      keyType: 'ec',
      curve: 'P-256',
    })
    const { SignJWT, importPKCS8 } = await import('jose')
    const token = await new SignJWT({ x: 1 })
      .setProtectedHeader({ alg: 'ES256' })
      .sign(await importPKCS8(pems.private, 'ES256'))
    expect(reasonOf(await verifyJwt({ token, public_key: pems.cert }))).toBe('valid')
  })
})
