import { createHmac, generateKeyPairSync, sign } from 'node:crypto'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectEnvelope } from '../../helpers/envelope.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

const RFC7519 =
  'eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9' +
  '.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ' +
  '.dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'
const A1_K = 'AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow'
const JWT_IO =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ' +
  '.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c'
const UNSECURED =
  'eyJhbGciOiJub25lIn0.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.'

const seg = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url')

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
const weak = generateKeyPairSync('rsa', { modulusLength: 1024 })
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' })
const RSA_SPKI = rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string
const RSA_PKCS8 = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string

const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom(
    '\ud800',
    '__proto__',
    'none',
    'HS256',
    'RS256',
    'ES256',
    'EdDSA',
    '2h',
    '-1y',
    '',
    RSA_SPKI,
    RSA_PKCS8,
  ),
)
const hostileValue = fc.oneof(
  hostileString,
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(1e308, -1, 2 ** 64, null, true, [], {}),
)
const HS_SECRET = 'k'.repeat(64)
// Correctly signed tokens over random headers and claims, so fuzzing reaches the claim checks too.
const signedTokens = fc
  .tuple(
    fc.constantFrom('HS256', 'RS256'),
    fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
    fc.jsonValue({ maxDepth: 2 }),
  )
  .map(([alg, header, claims]) => {
    const signed = `${seg({ ...header, alg })}.${seg(claims)}`
    const signature =
      alg === 'HS256'
        ? createHmac('sha256', HS_SECRET).update(signed).digest()
        : sign('sha256', Buffer.from(signed), rsa.privateKey)
    return `${signed}.${signature.toString('base64url')}`
  })
const tokenish = fc.oneof(
  signedTokens,
  hostileString,
  fc
    .tuple(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 }), fc.base64String())
    .map(([h, p, s]) => `${seg(h)}.${seg(p)}.${s.replace(/=+$/, '')}`),
  fc
    .tuple(fc.constantFrom('HS256', 'RS256', 'ES256', 'EdDSA', 'none', 'HS1'), fc.jsonValue({ maxDepth: 2 }))
    .map(([alg, p]) => `${seg({ alg, kid: 'a' })}.${seg(p)}.c2ln`),
  fc.constantFrom(RFC7519, JWT_IO, UNSECURED),
)
const jwkish = fc.oneof(
  fc.record(
    {
      kty: fc.constantFrom('RSA', 'EC', 'OKP', 'oct', 'AKP'),
      n: hostileValue,
      e: hostileValue,
      crv: hostileValue,
      x: hostileValue,
      y: hostileValue,
      k: hostileValue,
      d: hostileValue,
      kid: hostileValue,
      alg: hostileValue,
      use: hostileValue,
    },
    { requiredKeys: ['kty'] },
  ),
  fc.constant(rsa.publicKey.export({ format: 'jwk' }) as Record<string, unknown>),
  fc.constant(ec.publicKey.export({ format: 'jwk' }) as Record<string, unknown>),
  fc.object(),
)
const keyMaterial = fc.oneof(hostileValue, jwkish)
const timeValue = fc.oneof(hostileValue, fc.integer(), fc.constantFrom('2011-03-22T18:43:00Z', 1300819320))
// Well-typed values, so that most fuzzed bodies pass the schema and reach the operation itself.
const typedKey = fc.oneof(hostileString, jwkish)
const typedDuration = fc.oneof(
  fc.integer({ min: -1e9, max: 1e9 }),
  fc.constantFrom('2h', '15m', '1.5 days', '-1y', 'x'),
)
const typedAt = fc.oneof(
  fc.integer({ min: 0, max: 4e9 }),
  fc.constantFrom('2011-03-22T18:43:00Z', '2030-01-01T00:00:00+02:00'),
)
const strings = fc.array(hostileString, { minLength: 1, maxLength: 3 })
const shapedVerify = fc
  .tuple(
    tokenish,
    fc.oneof(
      fc.record({
        secret: hostileString,
        secret_encoding: fc.constantFrom('utf8', 'hex', 'base64', 'base64url'),
      }),
      fc.constant({ secret: HS_SECRET }),
      fc.record({ public_key: fc.oneof(typedKey, fc.constant(RSA_SPKI)) }),
      fc.record({ jwks: fc.record({ keys: fc.array(jwkish, { maxLength: 3 }) }) }),
      fc.constant({}),
    ),
    fc.record(
      {
        algorithms: fc.array(fc.constantFrom('HS256', 'RS256', 'ES256', 'EdDSA', 'none', 'XX'), {
          minLength: 1,
          maxLength: 3,
        }),
        issuer: fc.oneof(hostileString, strings),
        audience: fc.oneof(hostileString, strings),
        subject: hostileString,
        max_token_age: fc.oneof(fc.nat(), fc.constantFrom('1h', '-2h', 'soon')),
        clock_tolerance_seconds: fc.nat({ max: 1000 }),
        required_claims: fc.array(fc.string({ minLength: 1 }), { maxLength: 3 }),
        at: typedAt,
      },
      { requiredKeys: [] },
    ),
  )
  .map(([token, key, options]) => ({ token, ...key, ...options }))
const shapedSign = fc
  .tuple(
    fc.oneof(
      fc.record({
        algorithm: fc.constantFrom('HS256', 'HS384', 'HS512'),
        secret: fc.oneof(hostileString, fc.constant(HS_SECRET)),
      }),
      fc.record({
        algorithm: fc.constantFrom('RS256', 'PS512', 'ES256'),
        private_key: fc.oneof(typedKey, fc.constant(RSA_PKCS8)),
      }),
      fc.record({
        algorithm: fc.constantFrom('EdDSA', 'none', 'X', 'RS256'),
        secret: hostileString,
        private_key: typedKey,
      }),
    ),
    fc.record(
      {
        payload: fc.oneof(
          fc.object(),
          fc.dictionary(fc.constantFrom('exp', 'iat', 'sub', 'aud', '__proto__'), hostileValue),
        ),
        header: fc.oneof(
          fc.object(),
          fc.record({ alg: hostileString, kid: hostileString, crit: strings }, { requiredKeys: [] }),
        ),
        expires_in: typedDuration,
        not_before: typedDuration,
        issuer: hostileString,
        audience: fc.oneof(hostileString, strings),
        subject: hostileString,
      },
      { requiredKeys: ['payload'] },
    ),
  )
  .map(([key, rest]) => ({ ...key, ...rest }))

async function fuzz(t: TestApp, url: string, body: fc.Arbitrary<unknown>): Promise<void> {
  await fc.assert(
    fc.asyncProperty(body, async (payload) => {
      expectEnvelope(await t.post(url, payload))
    }),
    { numRuns: 200 },
  )
}

describe('/v1/jwt', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ unthrottled: true })
  })
  afterAll(() => t.close())

  it('decode: RFC 7519 §3.1 example', async () => {
    const res = await t.post('/v1/jwt/decode', { token: RFC7519 })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      ok: true,
      data: {
        header: { typ: 'JWT', alg: 'HS256' },
        payload: { iss: 'joe', exp: 1300819380, 'http://example.com/is_root': true },
        payload_format: 'json',
        signature: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
        signed_part: RFC7519.slice(0, RFC7519.lastIndexOf('.')),
      },
    })
  })

  it('decode: not a JWS is 400 ERR_INVALID_JWT locating the part', async () => {
    const res = await t.post('/v1/jwt/decode', { token: 'eyJhbGciOiJIUzI1NiJ9.e30' })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toMatchObject({
      type: 'invalid_request',
      code: 'ERR_INVALID_JWT',
      details: { part: 'structure', segments: 2 },
    })
    const header = await t.post('/v1/jwt/decode', { token: 'e30.e30.' })
    expect(header.json().error.details).toMatchObject({ part: 'header', reason: 'missing_alg' })
  })

  it('inspect: times, flags and warnings', async () => {
    const res = await t.post('/v1/jwt/inspect', { token: RFC7519, at: '2011-03-22T18:42:00Z' })
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toMatchObject({
      algorithm: 'HS256',
      type: 'JWT',
      key_id: null,
      claims: { exp: { value: 1300819380, iso: '2011-03-22T18:43:00.000Z', relative: 'in 1 minute' } },
      expired: false,
      expires_in_seconds: 60,
    })
    const none = await t.post('/v1/jwt/inspect', { token: UNSECURED })
    expect(none.json().data.expired).toBe(true)
    expect(none.json().data.warnings.map((w: { code: string }) => w.code)).toContain('alg_none')
    const badAt = await t.post('/v1/jwt/inspect', { token: RFC7519, at: 'yesterday' })
    expect(badAt.json().error).toMatchObject({
      code: 'ERR_VALIDATION',
      details: { issues: [{ path: 'at' }] },
    })
  })

  it('verify: valid, expired (200 valid:false), alg none', async () => {
    const ok = await t.post('/v1/jwt/verify', { token: JWT_IO, secret: 'your-256-bit-secret' })
    expect(ok.json()).toEqual({
      ok: true,
      data: {
        valid: true,
        header: { alg: 'HS256', typ: 'JWT' },
        payload: { sub: '1234567890', name: 'John Doe', iat: 1516239022 },
      },
    })
    const expired = await t.post('/v1/jwt/verify', {
      token: RFC7519,
      secret: A1_K,
      secret_encoding: 'base64url',
    })
    expect(expired.statusCode).toBe(200)
    expect(expired.json().data).toEqual({
      valid: false,
      reason: { code: 'expired', message: expect.any(String), claim: 'exp' },
    })
    const none = await t.post('/v1/jwt/verify', { token: UNSECURED })
    expect(none.json().data).toMatchObject({ valid: false, reason: { code: 'alg_none' } })
  })

  it('verify: remote JWKS URLs are refused with a clear message', async () => {
    const res = await t.post('/v1/jwt/verify', {
      token: JWT_IO,
      jwks: 'https://example.com/.well-known/jwks.json',
    })
    expect(res.statusCode).toBe(400)
    const error = res.json().error
    expect(error.code).toBe('ERR_VALIDATION')
    expect(error.details.issues).toEqual([{ path: 'jwks', message: expect.stringMatching(/not fetched/) }])
  })

  it('verify: weak RSA keys and broken key material are 400 ERR_INVALID_KEY_MATERIAL', async () => {
    const weakPem = weak.publicKey.export({ type: 'spki', format: 'pem' }) as string
    const res = await t.post('/v1/jwt/verify', { token: JWT_IO, public_key: weakPem })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toMatchObject({
      code: 'ERR_INVALID_KEY_MATERIAL',
      details: { modulus_bits: 1024 },
    })
    const privatePem = await t.post('/v1/jwt/verify', { token: JWT_IO, public_key: RSA_PKCS8 })
    expect(privatePem.json().error.code).toBe('ERR_INVALID_KEY_MATERIAL')
    expect(privatePem.body).not.toContain('MII')
  })

  it('verify: HS256 forged with the RSA public key as secret is refused', async () => {
    const signed = `${seg({ alg: 'HS256' })}.${seg({ sub: 'admin' })}`
    const forged = `${signed}.${createHmac('sha256', RSA_SPKI).update(signed).digest('base64url')}`
    const res = await t.post('/v1/jwt/verify', { token: forged, public_key: RSA_SPKI })
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toMatchObject({ valid: false, reason: { code: 'key_algorithm_mismatch' } })
  })

  it('sign → verify over HTTP; short secrets refused without echo', async () => {
    const signed = await t.post('/v1/jwt/sign', {
      payload: { scope: 'read' },
      algorithm: 'RS256',
      private_key: RSA_PKCS8,
      header: { kid: 'k1' },
      expires_in: '15m',
      issuer: 'anvil',
    })
    expect(signed.statusCode).toBe(200)
    const { token } = signed.json().data
    const verified = await t.post('/v1/jwt/verify', { token, public_key: RSA_SPKI, issuer: 'anvil' })
    expect(verified.json().data).toMatchObject({
      valid: true,
      header: { alg: 'RS256', kid: 'k1', typ: 'JWT' },
      payload: { scope: 'read', iss: 'anvil' },
    })
    const short = await t.post('/v1/jwt/sign', {
      payload: {},
      algorithm: 'HS256',
      secret: 'tiny-secret-value',
    })
    expect(short.statusCode).toBe(400)
    expect(short.json().error).toMatchObject({ code: 'ERR_INVALID_KEY_MATERIAL', details: { min_bytes: 32 } })
    expect(short.body).not.toContain('tiny-secret')
    const none = await t.post('/v1/jwt/sign', { payload: {}, algorithm: 'none', secret: 'x'.repeat(32) })
    expect(none.json().error.code).toBe('ERR_UNSUPPORTED_ALGORITHM')
  })

  it('a "__proto__" claim is signed as a claim and pollutes nothing', async () => {
    const body = `{"payload":{"__proto__":{"polluted":true},"a":1},"algorithm":"HS256","secret":"${'s'.repeat(32)}"}`
    const res = await t.post('/v1/jwt/sign', body)
    expect(res.statusCode).toBe(200)
    const claims = Buffer.from(res.json().data.token.split('.')[1], 'base64url').toString()
    expect(claims).toMatch(/^\{"__proto__":\{"polluted":true\},"a":1,"iat":\d+\}$/)
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined()
    const decoded = await t.post('/v1/jwt/decode', { token: res.json().data.token })
    expect(decoded.body).toContain('"__proto__":{"polluted":true}')
  })

  it('is documented in the OpenAPI document', async () => {
    const paths = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json().paths
    for (const op of ['decode', 'inspect', 'verify', 'sign'])
      expect(paths[`/v1/jwt/${op}`].post).toBeDefined()
  })

  it('fuzz: decode', async () => {
    await fuzz(
      t,
      '/v1/jwt/decode',
      fc.oneof(fc.jsonValue(), fc.record({ token: tokenish }, { requiredKeys: [] })),
    )
  })

  it('fuzz: inspect', async () => {
    await fuzz(
      t,
      '/v1/jwt/inspect',
      fc.oneof(
        fc.object(),
        fc.record({ token: tokenish, at: timeValue }, { requiredKeys: [] }),
        fc.record({ token: tokenish, at: typedAt }),
      ),
    )
  })

  it('fuzz: verify', async () => {
    const body = fc.record(
      {
        token: tokenish,
        secret: hostileValue,
        secret_encoding: hostileValue,
        public_key: keyMaterial,
        jwks: fc.oneof(hostileValue, fc.record({ keys: fc.array(jwkish, { maxLength: 4 }) })),
        algorithms: fc.oneof(hostileValue, fc.array(hostileString, { maxLength: 3 })),
        issuer: hostileValue,
        audience: hostileValue,
        subject: hostileValue,
        max_token_age: timeValue,
        clock_tolerance_seconds: timeValue,
        required_claims: fc.oneof(hostileValue, fc.array(hostileString, { maxLength: 3 })),
        at: timeValue,
      },
      { requiredKeys: [] },
    )
    await fuzz(t, '/v1/jwt/verify', fc.oneof(fc.jsonValue(), body, shapedVerify, shapedVerify))
  })

  it('fuzz: sign', async () => {
    const body = fc.record(
      {
        payload: fc.oneof(fc.object(), hostileValue),
        algorithm: fc.oneof(
          fc.constantFrom('HS256', 'HS512', 'RS256', 'PS256', 'ES256', 'EdDSA', 'none'),
          hostileValue,
        ),
        secret: fc.oneof(hostileValue, fc.constant('k'.repeat(64))),
        secret_encoding: hostileValue,
        private_key: fc.oneof(keyMaterial, fc.constant(RSA_PKCS8)),
        header: fc.oneof(fc.object(), hostileValue),
        expires_in: timeValue,
        not_before: timeValue,
        issuer: hostileValue,
        audience: hostileValue,
        subject: hostileValue,
      },
      { requiredKeys: [] },
    )
    await fuzz(t, '/v1/jwt/sign', fc.oneof(fc.jsonValue(), body, shapedSign, shapedSign))
  })

  it('hostile raw bodies: deep nesting everywhere', async () => {
    const deep = `${'['.repeat(50000)}${']'.repeat(50000)}`
    for (const [url, body] of [
      ['/v1/jwt/decode', `{"token":${deep}}`],
      ['/v1/jwt/verify', `{"token":"${JWT_IO}","public_key":{"kty":"RSA","n":${deep}}}`],
      ['/v1/jwt/sign', `{"algorithm":"HS256","secret":"${'s'.repeat(32)}","payload":{"a":${deep}}}`],
      [
        '/v1/jwt/sign',
        `{"algorithm":"HS256","secret":"${'s'.repeat(32)}","payload":{},"header":{"a":${deep}}}`,
      ],
    ] as const) {
      const res = await t.post(url, body)
      expectEnvelope(res)
      expect(res.statusCode).toBe(400)
    }
  })
})
