import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'

// /v1/password through the gateway: on the pool, under the plan's caps, and the password kept out of the
// logs, the metrics and any replay. (The ops themselves: test/ops/password/.)
const SECRET = 'Sw0rdf1sh-through-the-gateway-🔑'

// An argon2id hash of `memory_kib` KiB (one pass) for the key; `padding` spaces after the body push it past
// the inline bound, so that it is read as bytes and parsed on the pool thread.
function hashWithMemory(t: TestApp, key: string, memory_kib: number, padding = 0) {
  return t.app.inject({
    method: 'POST',
    url: '/v1/password/hash',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload: `${JSON.stringify({ password: 'x', params: { memory_kib, iterations: 1 } })}${' '.repeat(padding)}`,
  })
}

describe('/v1/password', () => {
  let t: TestApp
  let logs = ''
  beforeAll(async () => {
    const logStream = new PassThrough()
    logStream.on('data', (chunk: Buffer) => {
      logs += chunk.toString()
    })
    t = await startTestApp({ logStream })
  })
  afterAll(() => t.close())

  it('hashes on the pool and verifies what it hashed', async () => {
    const made = await t.post('/v1/password/hash', {
      password: SECRET,
      params: { memory_kib: 1024, iterations: 1 },
    })
    expect(made.statusCode).toBe(200)
    const { hash } = made.json().data
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/)
    expect(made.headers['server-timing']).toMatch(/dispatch;desc="paid"/)
    const ok = await t.post('/v1/password/verify', { password: SECRET, hash })
    expect(ok.json().data).toEqual({
      valid: true,
      algorithm: 'argon2id',
      params: { memory_kib: 1024, iterations: 1, parallelism: 1 },
      needs_rehash: true,
    })
    expect((await t.post('/v1/password/verify', { password: 'nope', hash })).json().data.valid).toBe(false)
  })

  it("applies the plan's caps: the free plan's argon2 memory at its cap and one KiB past it", async () => {
    const free = await t.newWorkspace('free')
    const post = (memory_kib: number) => hashWithMemory(t, free.key, memory_kib)
    expect((await post(65_536)).statusCode).toBe(200)
    const past = await post(65_537)
    expect(past.statusCode).toBe(422)
    expect(past.json().error).toMatchObject({
      code: 'ERR_PLAN_CAP',
      details: { cap: 'password_argon2_memory_kib', max: 65_536, requested: 65_537 },
    })
  })

  it('answers a malformed hash with 400 ERR_INVALID_HASH, never a 500', async () => {
    for (const hash of ['', '$', '$argon2id$v=19$m=1,t=1,p=1$$', '$2b$99$x', 'x'.repeat(3000)]) {
      const res = await t.post('/v1/password/verify', { password: SECRET, hash })
      expect(res.statusCode).toBe(400)
      expect(['ERR_INVALID_HASH', 'ERR_VALIDATION']).toContain(res.json().error.code)
    }
  })

  it('never replays a hash: an Idempotency-Key is not honoured, so no answer (nor password) is kept', async () => {
    const headers = { 'idempotency-key': 'password-key-1' }
    const body = { password: SECRET, params: { memory_kib: 64, iterations: 1 } }
    const first = await t.post('/v1/password/hash', body, headers)
    const second = await t.post('/v1/password/hash', body, headers)
    expect(second.headers['idempotent-replayed']).toBeUndefined()
    expect(second.json().data.hash).not.toBe(first.json().data.hash)
  })

  it('counts verifications, and rates the keys that verify the most by their id (bounded labels)', async () => {
    const other = await t.newWorkspace('pro')
    const verify = (password: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/password/verify',
        headers: { authorization: `Bearer ${other.key}`, 'content-type': 'application/json' },
        payload: JSON.stringify({
          password,
          hash: '$2b$04$/OK.fbVrR/bpIqNJ5ianF.CE5elHaaO4EbggVDjb8P19RukzXSM3e',
        }),
      })
    for (let i = 0; i < 6; i++) await verify(`guess-${i}`)
    await verify('x'.repeat(100))
    const metrics = (await t.admin.inject({ method: 'GET', url: '/metrics' })).body
    expect(metrics).toMatch(/anvil_password_verifications_total\{outcome="ok",plan="pro"\} 6/)
    expect(metrics).toMatch(/anvil_password_verifications_total\{outcome="refused",plan="pro"\} 1/)
    expect(metrics).toContain(`anvil_password_verify_key_rate{key_id="${other.keyId}",outcome="ok"} 0.1`)
    expect(metrics).toContain(
      `anvil_password_verify_key_rate{key_id="${other.keyId}",outcome="refused"} ${1 / 60}`,
    )
  })

  it('keeps the password out of the logs and the metrics, however a request ends', async () => {
    await t.post('/v1/password/hash', { password: SECRET, algorithm: 'bcrypt', params: { cost: 4 } })
    await t.post('/v1/password/hash', { password: `${SECRET}${'x'.repeat(80)}`, algorithm: 'bcrypt' })
    await t.post('/v1/password/hash', { password: SECRET, params: { cost: 4 } })
    await t.post('/v1/password/verify', { password: SECRET, hash: '$argon2id$v=16$x' })
    const metrics = (await t.admin.inject({ method: 'GET', url: '/metrics' })).body
    expect(logs.length).toBeGreaterThan(0)
    for (const text of [logs, metrics]) {
      expect(text).not.toContain('Sw0rdf1sh')
      expect(text).not.toContain(Buffer.from(SECRET).toString('base64').slice(0, 12))
    }
  })
})

describe('/v1/password admission by memory', () => {
  let t: TestApp
  beforeAll(async () => {
    // a free tier that holds 1 MiB of hashes at once, on two threads
    t = await startTestApp({ env: { POOL_FREE_OFFHEAP_MB: '1', POOL_FREE_THREADS: '2' } })
  })
  afterAll(() => t.close())

  it("runs hashes that fit the tier's budget, and refuses one that never could with 422 (not a 503 to retry)", async () => {
    const free = await t.newWorkspace('free')
    const post = (memory_kib: number) => hashWithMemory(t, free.key, memory_kib)
    // the whole budget, twice at once: one waits for the other
    const both = await Promise.all([post(1024), post(1024)])
    expect(both.map((r) => r.statusCode)).toEqual([200, 200])
    const tooBig = await post(1025)
    expect(tooBig.statusCode).toBe(422)
    expect(tooBig.json().error).toMatchObject({
      code: 'ERR_COMPUTE_LIMIT',
      details: { reason: 'memory', memory_bytes: 1025 * 1024, pool_memory_bytes: 1024 * 1024 },
    })
    expect(tooBig.headers['retry-after']).toBeUndefined()
  })

  it('holds a body parsed on the thread to the budget its admission took', async () => {
    const free = await t.newWorkspace('free')
    // padded past the inline bound: read as bytes and parsed on the pool thread, where the request is
    // known only after admission (charged the most its caps allow, clamped to the 1 MiB budget)
    const post = (memory_kib: number) => hashWithMemory(t, free.key, memory_kib, 200_000)
    const fits = await post(1024)
    expect(fits.statusCode).toBe(200)
    expect(fits.headers['server-timing']).toMatch(/dispatch;desc="free"/)
    const tooBig = await post(1025)
    expect(tooBig.statusCode).toBe(422)
    expect(tooBig.json().error).toMatchObject({
      code: 'ERR_COMPUTE_LIMIT',
      details: { reason: 'memory', memory_bytes: 1025 * 1024, pool_memory_bytes: 1024 * 1024 },
    })
  })
})
