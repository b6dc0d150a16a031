import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectEnvelope } from '../../helpers/envelope.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

const SEED = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'

describe('/v1/otp', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await startTestApp({ unthrottled: true })
  })
  afterAll(() => t.close())

  const field = async (path: string, body: unknown) => {
    const res = await t.post(path, body)
    return { status: res.statusCode, body: res.json() }
  }

  it('generate and verify: TOTP now by default, with the seconds left', async () => {
    const made = await field('/v1/otp/generate', { secret: SEED })
    expect(made.status).toBe(200)
    expect(made.body.data).toMatchObject({ type: 'totp', algorithm: 'SHA1', digits: 6, period: 30 })
    expect(made.body.data.code).toMatch(/^\d{6}$/)
    expect(made.body.data.seconds_left).toBeGreaterThanOrEqual(1)
    expect(made.body.data.seconds_left).toBeLessThanOrEqual(30)
    const checked = await field('/v1/otp/verify', { secret: SEED, code: made.body.data.code })
    expect(checked.body.data).toMatchObject({ valid: true })
  })

  it('bounds: digits 6–8, window 0–5, period 1–86400, counter up to 2^53 - 1, bytes 16–64, each at and one past', async () => {
    const ok = [
      ['/v1/otp/generate', { secret: SEED, digits: 6 }],
      ['/v1/otp/generate', { secret: SEED, digits: 8 }],
      ['/v1/otp/generate', { secret: SEED, period: 1 }],
      ['/v1/otp/generate', { secret: SEED, period: 86_400 }],
      ['/v1/otp/generate', { type: 'hotp', secret: SEED, counter: Number.MAX_SAFE_INTEGER }],
      ['/v1/otp/verify', { secret: SEED, code: '123456', window: 5 }],
      ['/v1/otp/verify', { secret: SEED, code: '123456', window: 0 }],
      ['/v1/otp/secret', { account: 'a', bytes: 16 }],
      ['/v1/otp/secret', { account: 'a', bytes: 64 }],
    ] as const
    for (const [path, body] of ok) expect((await field(path, body)).status, JSON.stringify(body)).toBe(200)
    const refused = [
      ['/v1/otp/generate', { secret: SEED, digits: 5 }, 'digits'],
      ['/v1/otp/generate', { secret: SEED, digits: 9 }, 'digits'],
      ['/v1/otp/generate', { secret: SEED, period: 0 }, 'period'],
      ['/v1/otp/generate', { secret: SEED, period: 86_401 }, 'period'],
      ['/v1/otp/generate', { type: 'hotp', secret: SEED, counter: 2 ** 53 }, 'counter'],
      ['/v1/otp/generate', { type: 'hotp', secret: SEED, counter: -1 }, 'counter'],
      ['/v1/otp/verify', { secret: SEED, code: '123456', window: 6 }, 'window'],
      ['/v1/otp/secret', { account: 'a', bytes: 15 }, 'bytes'],
      ['/v1/otp/secret', { account: 'a', bytes: 65 }, 'bytes'],
    ] as const
    for (const [path, body, path_] of refused) {
      const res = await field(path, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.error.code).toBe('ERR_VALIDATION')
      expect(res.body.error.details.issues[0].path).toBe(path_)
    }
  })

  it('a bad secret is refused at its position, and no answer repeats the secret', async () => {
    const secret = 'JBSWY3DP1HPK3PXP'
    const res = await t.post('/v1/otp/generate', { secret })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toMatchObject({
      code: 'ERR_INVALID_ENCODING',
      details: { field: 'secret', position: 8 },
    })
    expect(res.body).not.toContain(secret)
    const uri = await t.post('/v1/otp/uri/parse', { uri: `otpauth://totp/x?secret=${secret}` })
    expect(uri.json().error).toMatchObject({ code: 'ERR_INVALID_OTP_URI', details: { parameter: 'secret' } })
    expect(uri.body).not.toContain(secret)
  })

  it('secret: each call a new secret; its URI reads back', async () => {
    const a = await field('/v1/otp/secret', { account: 'alice@example.com', issuer: 'ACME' })
    const b = await field('/v1/otp/secret', { account: 'alice@example.com', issuer: 'ACME' })
    expect(a.body.data.secret).not.toBe(b.body.data.secret)
    const parsed = await field('/v1/otp/uri/parse', { uri: a.body.data.uri })
    expect(parsed.body.data).toMatchObject({
      secret: a.body.data.secret,
      account: 'alice@example.com',
      issuer: 'ACME',
    })
  })

  it('fuzz: hostile bodies never produce a 5xx and always an envelope', async () => {
    const hostile = fc.oneof(
      fc.string(),
      fc.constantFrom(
        '',
        '====',
        'A',
        '\ud800',
        '__proto__',
        'otpauth://totp/a?secret=AA&counter=1e3',
        2 ** 60,
        -0,
        null,
      ),
      fc.jsonValue({ maxDepth: 2 }),
    )
    const body = fc.record(
      {
        type: fc.oneof(fc.constantFrom('totp', 'hotp'), hostile),
        secret: fc.oneof(fc.constantFrom(SEED, 'jbsw y3dp'), hostile),
        digits: fc.oneof(fc.integer({ min: 5, max: 9 }), hostile),
        algorithm: fc.oneof(fc.constantFrom('SHA1', 'SHA256', 'SHA512'), hostile),
        period: fc.oneof(fc.integer({ min: -1, max: 100 }), hostile),
        counter: fc.oneof(fc.integer({ min: -1, max: 100 }), hostile),
        at: fc.oneof(
          fc.integer({ min: -1, max: 2 ** 40 }),
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          hostile,
        ),
        code: fc.oneof(fc.stringMatching(/^\d{6,8}$/), hostile),
        window: fc.oneof(fc.integer({ min: -1, max: 6 }), hostile),
        account: fc.oneof(fc.string({ minLength: 1 }), hostile),
        issuer: hostile,
        bytes: fc.oneof(fc.integer({ min: 15, max: 65 }), hostile),
        uri: fc.oneof(fc.constantFrom('otpauth://hotp/a:b?secret=AA&counter=3', 'otpauth://'), hostile),
      },
      { requiredKeys: [] },
    )
    for (const path of ['/v1/otp/generate', '/v1/otp/verify', '/v1/otp/secret', '/v1/otp/uri/parse']) {
      await fc.assert(
        fc.asyncProperty(body, async (b) => {
          expectEnvelope(await t.post(path, JSON.stringify(b)))
        }),
        { numRuns: 150 },
      )
    }
  })
})
