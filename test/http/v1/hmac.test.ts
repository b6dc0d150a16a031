import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectEnvelope } from '../../helpers/envelope.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

// RFC 4231 test case 2
const JEFE = { input: 'what do ya want for nothing?', key: 'Jefe' }
const JEFE_SHA256 = '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843'

const hostileString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('\ud800', 'a\udc00b', '__proto__', 'constructor', 'verify', 'SHA256', 'shake256', '', 'ff'),
)
const hostileValue = fc.oneof(
  hostileString,
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(1e308, -0, 2 ** 64, null, true, [], {}),
)
// Every byte percent-encoded, within the router's 200-character parameter limit: malformed escapes and
// over-long parameters are refused by the router before any route runs (the gateway's concern).
const pathSegment = fc.oneof(
  hostileString.map((s) =>
    [...Buffer.from(s).subarray(0, 60)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join(''),
  ),
  fc.constantFrom('sha256', 'verify', 'SHA3-256', 'x'.repeat(150)),
)
const encoding = fc.oneof(fc.constantFrom('utf8', 'hex', 'base64', 'base64url'), hostileValue)

describe('/v1/hmac', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ unthrottled: true })
  })
  afterAll(() => t.close())

  it('computes an HMAC (RFC 4231 case 2)', async () => {
    const res = await t.post('/v1/hmac/sha256', JEFE)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      ok: true,
      data: { algorithm: 'sha256', digest: JEFE_SHA256, output_encoding: 'hex' },
    })
  })

  it('takes encodings for input and key, and any case for the algorithm', async () => {
    const res = await t.post('/v1/hmac/SHA256', {
      input: Buffer.from(JEFE.input).toString('base64'),
      input_encoding: 'base64',
      key: '4a656665',
      key_encoding: 'hex',
      output_encoding: 'base64url',
    })
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toEqual({
      algorithm: 'sha256',
      digest: Buffer.from(JEFE_SHA256, 'hex').toString('base64url'),
      output_encoding: 'base64url',
    })
  })

  it('verify is its own route, never read as an algorithm named "verify"', async () => {
    const good = await t.post('/v1/hmac/verify', { algorithm: 'sha256', ...JEFE, digest: JEFE_SHA256 })
    expect(good.statusCode).toBe(200)
    expect(good.json()).toEqual({ ok: true, data: { valid: true } })
    const bad = await t.post('/v1/hmac/verify', {
      algorithm: 'sha256',
      ...JEFE,
      digest: JEFE_SHA256.slice(2),
    })
    expect(bad.json()).toEqual({ ok: true, data: { valid: false } })
    const b64 = await t.post('/v1/hmac/verify', {
      algorithm: 'sha256',
      ...JEFE,
      digest: Buffer.from(JEFE_SHA256, 'hex').toString('base64'),
      digest_encoding: 'base64',
    })
    expect(b64.json().data.valid).toBe(true)
  })

  it('refuses unknown algorithms, undecodable digests and keys, without echoing the key', async () => {
    const unknown = await t.post('/v1/hmac/shake128', JEFE)
    expect(unknown.statusCode).toBe(400)
    expect(unknown.json().error.code).toBe('ERR_UNSUPPORTED_ALGORITHM')

    const digest = await t.post('/v1/hmac/verify', { algorithm: 'sha256', ...JEFE, digest: 'not-hex' })
    expect(digest.statusCode).toBe(400)
    expect(digest.json().error).toMatchObject({
      code: 'ERR_INVALID_ENCODING',
      details: { field: 'digest', position: 0 },
    })

    const key = 'super-secret-key-g'
    const badKey = await t.post('/v1/hmac/sha256', { input: 'x', key, key_encoding: 'hex' })
    expect(badKey.statusCode).toBe(400)
    expect(badKey.json().error).toMatchObject({ code: 'ERR_INVALID_ENCODING', details: { field: 'key' } })
    expect(badKey.body).not.toContain('secret')
  })

  it('schema violations are ERR_VALIDATION with paths; a key is required', async () => {
    const res = await t.post('/v1/hmac/sha256', { input: 'x', output_encoding: 'utf8' })
    expect(res.statusCode).toBe(400)
    const paths = res
      .json()
      .error.details.issues.map((i: { path: string }) => i.path)
      .sort()
    expect(paths).toEqual(['key', 'output_encoding'])
  })

  it('needs an API key', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/hmac/sha256', payload: JEFE })
    expect(res.statusCode).toBe(401)
  })

  it('is documented in the OpenAPI document', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })
    const paths = res.json().paths
    expect(paths['/v1/hmac/{algorithm}'].post.operationId).toBe('hmac')
    expect(paths['/v1/hmac/verify'].post.operationId).toBe('verifyHmac')
  })

  it('fuzz: arbitrary bodies never produce a 5xx (compute)', async () => {
    const body = fc.oneof(
      fc.jsonValue(),
      fc.object(),
      fc.record(
        {
          input: hostileValue,
          key: hostileValue,
          input_encoding: encoding,
          key_encoding: encoding,
          output_encoding: encoding,
        },
        { requiredKeys: [] },
      ),
    )
    await fc.assert(
      fc.asyncProperty(pathSegment, body, async (algorithm, payload) => {
        expectEnvelope(await t.post(`/v1/hmac/${algorithm}`, payload))
      }),
      { numRuns: 200 },
    )
  })

  it('fuzz: arbitrary bodies never produce a 5xx (verify)', async () => {
    const body = fc.oneof(
      fc.jsonValue(),
      fc.record(
        {
          algorithm: fc.oneof(fc.constantFrom('sha256', 'md5', 'sha3-512'), hostileValue),
          input: hostileValue,
          key: hostileValue,
          digest: hostileValue,
          digest_encoding: encoding,
          key_encoding: encoding,
        },
        { requiredKeys: [] },
      ),
    )
    await fc.assert(
      fc.asyncProperty(body, async (payload) => {
        expectEnvelope(await t.post('/v1/hmac/verify', payload))
      }),
      { numRuns: 200 },
    )
  })

  it('hostile raw bodies: "__proto__" keys and deep nesting', async () => {
    const proto = await t.post('/v1/hmac/sha256', '{"__proto__":{"key":"x"},"input":"a","key":"k"}')
    expect(proto.statusCode).toBe(400)
    expect(proto.json().error.details.issues[0].path).toBe('__proto__')
    expect(({} as { key?: unknown }).key).toBeUndefined()
    const deep = await t.post('/v1/hmac/verify', `{"input":${'['.repeat(50000)}${']'.repeat(50000)}}`)
    expectEnvelope(deep)
    expect(deep.statusCode).toBe(400)
  })
})
