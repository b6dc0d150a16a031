import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { AppError } from '../../../src/errors.ts'
import { decodeJwt } from '../../../src/ops/jwt/decode.ts'
import { inspectJwt } from '../../../src/ops/jwt/inspect.ts'

// RFC 7519 §3.1 (the same token as RFC 7515 Appendix A.1): header and payload hold CRLFs.
const RFC7519 =
  'eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9' +
  '.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ' +
  '.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'
// RFC 7519 §6.1, an Unsecured JWT
const UNSECURED =
  'eyJhbGciOiJub25lIn0.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.'
// jwt.io's default sample (HS256, secret "your-256-bit-secret")
const JWT_IO =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ' +
  '.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'

const seg = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')
const tokenOf = (header: unknown, payload: unknown, signature = 'c2ln') =>
  `${seg(header)}.${seg(payload)}.${signature}`

function invalidJwt(token: string): Record<string, unknown> {
  try {
    decodeJwt({ token })
  } catch (err) {
    expect(err).toBeInstanceOf(AppError)
    expect((err as AppError).code).toBe('ERR_INVALID_JWT')
    return (err as AppError).details ?? {}
  }
  throw new Error('expected ERR_INVALID_JWT')
}

describe('jwt decode', () => {
  it('RFC 7519 §3.1 example', () => {
    expect(decodeJwt({ token: RFC7519 })).toEqual({
      header: { typ: 'JWT', alg: 'HS256' },
      payload: { iss: 'joe', exp: 1300819380, 'http://example.com/is_root': true },
      payload_format: 'json',
      signature: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      signed_part: RFC7519.slice(0, RFC7519.lastIndexOf('.')),
    })
  })

  it('RFC 7519 §6.1 unsecured JWT and the jwt.io sample', () => {
    const none = decodeJwt({ token: UNSECURED })
    expect(none.header).toEqual({ alg: 'none' })
    expect(none.signature).toBe('')
    expect(decodeJwt({ token: JWT_IO }).payload).toEqual({
      sub: '1234567890',
      name: 'John Doe',
      iat: 1516239022,
    })
  })

  it('payloads that are not JSON objects come back as text or base64url, and say so', () => {
    expect(decodeJwt({ token: tokenOf({ alg: 'HS256' }, 'hello') })).toMatchObject({
      payload: 'hello',
      payload_format: 'text',
    })
    expect(decodeJwt({ token: tokenOf({ alg: 'HS256' }, '[1,2]') })).toMatchObject({ payload_format: 'text' })
    const bytes = Buffer.from([0xff, 0xfe, 0x00]).toString('base64url')
    expect(decodeJwt({ token: `${seg({ alg: 'HS256' })}.${bytes}.` })).toMatchObject({
      payload: bytes,
      payload_format: 'base64url',
    })
    expect(decodeJwt({ token: `${seg({ alg: 'HS256' })}..` })).toMatchObject({
      payload: '',
      payload_format: 'text',
    })
  })

  it('keeps a "__proto__" claim as a plain member', () => {
    const decoded = decodeJwt({ token: `${seg({ alg: 'HS256' })}.${seg('{"__proto__":{"admin":true}}')}.` })
    const payload = decoded.payload as Record<string, unknown>
    expect(Object.hasOwn(payload, '__proto__')).toBe(true)
    expect((payload as { admin?: unknown }).admin).toBeUndefined()
    expect(({} as { admin?: unknown }).admin).toBeUndefined()
  })

  it('locates structural problems', () => {
    expect(invalidJwt('')).toMatchObject({ part: 'structure', reason: 'segment_count', segments: 1 })
    expect(invalidJwt('a.b')).toMatchObject({ part: 'structure', segments: 2 })
    expect(invalidJwt('a.b.c.d.e')).toMatchObject({ part: 'structure', reason: 'jwe' })
    expect(invalidJwt('.e30.')).toMatchObject({ part: 'header', reason: 'empty', position: 0 })
  })

  it('locates bad base64url by position in the token', () => {
    const header = seg({ alg: 'HS256' })
    expect(invalidJwt(`ey!J.e30.`)).toMatchObject({
      part: 'header',
      reason: 'invalid_base64url',
      position: 2,
    })
    expect(invalidJwt(`${header}.e30=.`)).toMatchObject({ part: 'payload', position: header.length + 4 })
    expect(invalidJwt(`${header}.e30.ab+c`)).toMatchObject({ part: 'signature', position: header.length + 7 })
    expect(invalidJwt(`${header}.e30.abcde`)).toMatchObject({
      part: 'signature',
      reason: 'invalid_base64url',
    })
  })

  it('refuses headers that are not a JSON object with an alg', () => {
    expect(invalidJwt(`${seg('nope')}.e30.`)).toMatchObject({ part: 'header', reason: 'not_json_object' })
    expect(invalidJwt(`${seg([1])}.e30.`)).toMatchObject({ part: 'header', reason: 'not_json_object' })
    expect(invalidJwt(`${seg({ typ: 'JWT' })}.e30.`)).toMatchObject({ part: 'header', reason: 'missing_alg' })
    expect(invalidJwt(`${Buffer.from([0xc3, 0x28]).toString('base64url')}.e30.`)).toMatchObject({
      reason: 'invalid_utf8',
    })
  })

  it('refuses nesting that could not be echoed back safely', () => {
    const deep = `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`
    expect(invalidJwt(`${seg({ alg: 'HS256' })}.${seg(deep)}.`)).toMatchObject({
      part: 'payload',
      reason: 'too_deep',
    })
    expect(invalidJwt(`${seg(`{"alg":"x","b":${deep}}`)}.e30.`)).toMatchObject({
      part: 'header',
      reason: 'too_deep',
    })
  })

  it('property: any string decodes or is ERR_INVALID_JWT, never anything else', () => {
    const tokenish = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.tuple(fc.string(), fc.string(), fc.string()).map((p) => p.join('.')),
      fc
        .tuple(fc.jsonValue(), fc.jsonValue(), fc.base64String())
        .map(([h, p, s]) => `${seg(h)}.${seg(p)}.${s.replace(/=+$/, '')}`),
    )
    fc.assert(
      fc.property(tokenish, (token) => {
        try {
          decodeJwt({ token })
        } catch (err) {
          expect((err as AppError).code).toBe('ERR_INVALID_JWT')
        }
      }),
      { numRuns: 300 },
    )
  })

  it('property: header and claims round-trip', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })), (claims) => {
        const decoded = decodeJwt({ token: tokenOf({ alg: 'ES256', kid: 'k' }, claims, '') })
        expect(decoded.payload_format).toBe('json')
        expect(JSON.stringify(decoded.payload)).toBe(JSON.stringify(JSON.parse(JSON.stringify(claims))))
      }),
      { numRuns: 200 },
    )
  })
})

describe('jwt inspect', () => {
  it('RFC 7519 token before and after its exp', () => {
    const before = inspectJwt({ token: RFC7519, at: 1300819380 - 7200 })
    expect(before).toMatchObject({
      at: '2011-03-22T16:43:00.000Z',
      algorithm: 'HS256',
      key_id: null,
      type: 'JWT',
      claims: {
        iat: null,
        nbf: null,
        exp: { value: 1300819380, iso: '2011-03-22T18:43:00.000Z', relative: 'in 2 hours' },
      },
      expired: false,
      not_yet_valid: false,
      expires_in_seconds: 7200,
    })
    const at = inspectJwt({ token: RFC7519, at: '2011-03-22T18:43:00Z' })
    expect(at).toMatchObject({ expired: true, expires_in_seconds: 0 })
    expect(at.claims.exp?.relative).toBe('now')
    const later = inspectJwt({ token: RFC7519, at: '2014-03-22T18:43:00+00:00' })
    expect(later.claims.exp?.relative).toBe('3 years ago')
    expect(later.expired).toBe(true)
  })

  it('warns about the jwt.io sample: no exp, no kid, shared secret', () => {
    const result = inspectJwt({ token: JWT_IO, at: 1516239022 + 30 })
    expect(result.warnings.map((w) => w.code).sort()).toEqual([
      'missing_exp',
      'missing_kid',
      'symmetric_algorithm',
    ])
    expect(result.claims.iat).toEqual({
      value: 1516239022,
      iso: '2018-01-18T01:30:22.000Z',
      relative: '30 seconds ago',
    })
    expect(result.expires_in_seconds).toBeNull()
  })

  it('warns about alg none, and never calls it anything but unsigned', () => {
    const codes = inspectJwt({ token: UNSECURED, at: 0 }).warnings.map((w) => w.code)
    expect(codes).toContain('alg_none')
    expect(codes).not.toContain('missing_kid')
  })

  it('warns about long lifetimes, future iat, impossible windows, keys in the header, bad dates', () => {
    const now = 1_700_000_000
    const codes = (header: object, payload: object) =>
      inspectJwt({ token: tokenOf({ alg: 'ES256', kid: 'k', ...header }, payload), at: now }).warnings.map(
        (w) => w.code,
      )
    expect(codes({}, { iat: now, exp: now + 2 * 365 * 86400 })).toEqual(['long_lifetime'])
    expect(codes({}, { iat: now + 60, exp: now + 120 })).toEqual(['iat_in_future'])
    expect(codes({}, { nbf: now + 100, exp: now + 50 })).toEqual(['inconsistent_times'])
    expect(codes({ jku: 'https://evil.example/jwks' }, { exp: now + 60 })).toEqual(['key_in_header'])
    expect(codes({}, { exp: '2030-01-01' })).toEqual(['invalid_numeric_date', 'missing_exp'])
    expect(codes({ alg: 'HS1' }, { exp: now + 60 })).toEqual(['unsupported_algorithm'])
    expect(codes({}, { exp: now + 60 })).toEqual([])
  })

  it('not yet valid, and numbers too large for a date', () => {
    const result = inspectJwt({
      token: tokenOf({ alg: 'ES256' }, { nbf: 2_000_000_000, exp: 1e300 }),
      at: 1_900_000_000,
    })
    expect(result.not_yet_valid).toBe(true)
    expect(result.claims.nbf?.relative).toBe('in 3 years')
    expect(result.claims.exp).toMatchObject({ value: 1e300, iso: null })
  })

  it('a text payload has no claims', () => {
    const result = inspectJwt({ token: tokenOf({ alg: 'HS256' }, 'hi'), at: 0 })
    expect(result.claims).toEqual({ iat: null, nbf: null, exp: null })
    expect(result.warnings.map((w) => w.code)).toContain('payload_not_json')
  })
})
