import { Writable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

// The key-pair routes over HTTP: RSA on the pool and capped per plan, the rest inline; no key in any log
// line; Idempotency-Key ignored (these routes are not creates: nothing is kept, a retry makes a new pair).
describe('/v1/crypto', () => {
  let t: TestApp
  const logged: string[] = []
  beforeAll(async () => {
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        logged.push(String(chunk))
        done()
      },
    })
    t = await startTestApp({
      logStream,
      env: { LOG_LEVEL: 'debug', PLANS: JSON.stringify({ pro: { crypto_rsa_max_bits: 3072 } }) },
    })
  })
  afterAll(() => t.close())

  const post = (key: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: path,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      payload: JSON.stringify(body),
    })

  it('Ed25519 inline; RSA on the pool', async () => {
    const ed = await t.post('/v1/crypto/keypair', { type: 'ed25519' })
    expect(ed.statusCode).toBe(200)
    expect(ed.headers['server-timing']).toBeUndefined()
    const rsa = await t.post('/v1/crypto/keypair', { type: 'rsa' })
    expect(rsa.statusCode).toBe(200)
    expect(String(rsa.headers['server-timing'])).toMatch(/dispatch;desc="paid"/)
    expect(rsa.json().data).toMatchObject({ type: 'rsa', bits: 2048 })
  })

  it("RSA bits at each plan's cap and past it (422 ERR_PLAN_CAP, the cap named); a plan's cap can be changed", async () => {
    const free = await t.newWorkspace('free')
    expect((await post(free.key, '/v1/crypto/keypair', { type: 'rsa', bits: 2048 })).statusCode).toBe(200)
    const over = await post(free.key, '/v1/crypto/keypair', { type: 'rsa', bits: 2056 })
    expect(over.statusCode).toBe(422)
    expect(over.json().error).toMatchObject({
      code: 'ERR_PLAN_CAP',
      details: { cap: 'crypto_rsa_max_bits', max: 2048, requested: 2056 },
    })
    // pro's cap is 3072 here (PLANS)
    const pro = await t.newWorkspace('pro')
    expect((await post(pro.key, '/v1/crypto/keypair', { type: 'rsa', bits: 3072 })).statusCode).toBe(200)
    expect(
      (await post(pro.key, '/v1/crypto/keypair', { type: 'rsa', bits: 3080 })).json().error.details,
    ).toMatchObject({
      max: 3072,
    })
    // business: the schema's 4096
    expect((await t.post('/v1/crypto/keypair', { type: 'rsa', bits: 4096 })).statusCode).toBe(200)
  }, 60_000)

  it('the schema: 2048–4096 bits in whole bytes', async () => {
    for (const bits of [2040, 4104, 2049]) {
      const res = await t.post('/v1/crypto/keypair', { type: 'rsa', bits })
      expect(res.statusCode, String(bits)).toBe(400)
      expect(res.json().error.details.issues[0].path).toBe('bits')
    }
  })

  it('Idempotency-Key is ignored: a retry makes a new pair and nothing is replayed', async () => {
    const headers = { 'idempotency-key': 'same-key-0001' }
    const a = await post(t.key, '/v1/crypto/keypair', { type: 'ec' }, headers)
    const b = await post(t.key, '/v1/crypto/keypair', { type: 'ec' }, headers)
    expect(a.statusCode).toBe(200)
    expect(b.statusCode).toBe(200)
    expect(b.headers['idempotent-replayed']).toBeUndefined()
    expect(b.json().data.private_key.jwk.d).not.toBe(a.json().data.private_key.jwk.d)
  })

  it('no log line holds a private key (pair made, or converted), at debug level', async () => {
    const made = (await t.post('/v1/crypto/keypair', { type: 'ed25519' })).json().data
    const converted = await t.post('/v1/crypto/convert', { key: made.private_key.pem })
    expect(converted.json().data.private_key).toEqual(made.private_key)
    const bad = await t.post('/v1/crypto/convert', { key: { ...made.private_key.jwk, x: 'AAAA' } })
    expect(bad.statusCode).toBe(400)
    await new Promise((r) => setTimeout(r, 50))
    const text = logged.join('')
    expect(text.length).toBeGreaterThan(0)
    expect(text).not.toContain(made.private_key.jwk.d)
    expect(text).not.toContain(made.private_key.pem.split('\n')[1])
  })
})
