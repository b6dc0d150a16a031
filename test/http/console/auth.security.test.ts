import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { sessionIdOf } from '../../../src/accounts/session.ts'
import { ACCOUNTS_FILE } from '../../../src/accounts/store/memory.ts'
import { addressBucket } from '../../../src/lib/address-bucket.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { ConsoleClient, cookiesOf, ORIGIN, PASSWORD } from './console-client.ts'
import { tenant } from './fixtures.ts'

const T0 = Date.UTC(2026, 4, 10, 9)
const DAY = 86_400_000

describe('console accounts and sessions', () => {
  let t: TestApp
  let now = T0
  afterEach(() => t?.close())

  async function start(logStream?: NodeJS.WritableStream) {
    now = T0
    t = await startTestApp({ overrides: { clock: () => now }, ...(logStream ? { logStream } : {}) })
    return new ConsoleClient(t.app)
  }

  it('sign-up signs in with an HttpOnly, Secure, SameSite=Strict session cookie scoped to /console', async () => {
    const c = await start()
    const res = await c.call('POST', '/console/api/signup', {
      email: ' Ann@Example.COM ',
      password: PASSWORD,
    })
    expect(res.statusCode).toBe(200)
    const [cookie] = cookiesOf(res)
    expect(cookie).toMatch(
      /^anvil_session=[A-Za-z0-9_-]{43}; Path=\/console; Max-Age=604800; HttpOnly; Secure; SameSite=Strict$/,
    )
    const data = res.json().data
    expect(data.user).toEqual({
      id: expect.stringMatching(/^usr_/),
      email: 'ann@example.com',
      created_at: expect.any(String),
    })
    expect(data.workspace).toMatchObject({ name: 'My workspace', plan: 'free', role: 'owner' })
    expect(data.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(res.body).not.toContain(PASSWORD)
    expect(res.body).not.toContain('$scrypt$') // the stored password hash (src/accounts/password.ts)
    expect(res.headers['cache-control']).toBe('no-store')
    const session = await c.call('GET', '/console/api/session')
    expect(session.json().data).toMatchObject({
      user: { email: 'ann@example.com' },
      csrf_token: data.csrf_token,
    })
  })

  it('stores only the hash of the session token', async () => {
    const c = await start()
    await c.signUp('ann@example.com')
    const token = c.cookie!.split('=')[1]!
    const file = await readFile(join(t.dataDir, ACCOUNTS_FILE), 'utf8')
    expect(file).not.toContain(token)
    expect(file).toContain(sessionIdOf(token))
    expect(file).not.toContain(PASSWORD)
  })

  it('refuses a second account for the same email (any case) with 409, and bad input with 400', async () => {
    const c = await start()
    await c.signUp('ann@example.com')
    const other = new ConsoleClient(t.app)
    const dup = await other.call('POST', '/console/api/signup', {
      email: 'ANN@example.com',
      password: PASSWORD,
    })
    expect(dup.statusCode).toBe(409)
    expect(dup.json().error).toMatchObject({ code: 'ERR_CONFLICT', details: { issues: [{ path: 'email' }] } })
    expect(cookiesOf(dup)).toEqual([])
    const short = await other.call('POST', '/console/api/signup', {
      email: 'b@example.com',
      password: 'short-9ch',
    })
    expect(short.statusCode).toBe(400)
    expect(short.json().error.details.issues).toEqual([
      { path: 'password', message: 'must be at least 10 characters' },
    ])
    expect(short.body).not.toContain('short-9ch')
    const long = await other.call('POST', '/console/api/signup', {
      email: 'b@example.com',
      password: 'x'.repeat(257),
    })
    expect(long.json().error.details.issues[0].path).toBe('password')
    const email = await other.call('POST', '/console/api/signup', {
      email: 'not-an-email',
      password: PASSWORD,
    })
    expect(email.json().error.details.issues[0].path).toBe('email')
    const huge = await other.call('POST', '/console/api/signup', {
      email: 'b@example.com',
      password: 'x'.repeat(20_000),
    })
    expect(huge.statusCode).toBe(413)
    const form = await other.call('POST', '/console/api/signin', undefined, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(form.statusCode).toBe(415)
  })

  it('sign-in issues a new session id and ends the one the browser had (no fixation)', async () => {
    const c = await start()
    await c.signUp('ann@example.com')
    const before = c.cookie!
    const res = await c.signIn('ann@example.com')
    expect(res.statusCode).toBe(200)
    expect(c.cookie).not.toBe(before)
    expect(cookiesOf(res)).toHaveLength(1)
    const stale = await t.app.inject({
      method: 'GET',
      url: '/console/api/session',
      headers: { cookie: before },
    })
    expect(stale.statusCode).toBe(401)
    expect(cookiesOf(stale)[0]).toMatch(/^anvil_session=; Path=\/console; Max-Age=0/)
    expect((await c.call('GET', '/console/api/session')).statusCode).toBe(200)
  })

  it('answers a wrong password and an unknown email identically', async () => {
    const c = await start()
    await c.signUp('ann@example.com')
    const anon = new ConsoleClient(t.app)
    const wrong = await anon.signIn('ann@example.com', 'not the password')
    const unknown = await anon.signIn('nobody@example.com', 'not the password')
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(401)
      expect(cookiesOf(res)).toEqual([])
    }
    expect(wrong.body).toBe(unknown.body)
    expect(wrong.json().error).toEqual({
      type: 'authentication_error',
      code: 'ERR_UNAUTHORIZED',
      message: 'The email or the password is wrong.',
    })
  })

  it('a stranger cannot lock the owner out: per (account, address) attempts back off with a growing Retry-After', async () => {
    const c = await start()
    await c.signUp('ann@example.com')
    const attacker = new ConsoleClient(t.app, '203.0.113.1')
    const owner = new ConsoleClient(t.app, '198.51.100.99')
    for (let i = 0; i < 5; i++)
      expect((await attacker.signIn('ann@example.com', 'wrong password')).statusCode).toBe(401)
    // then each further guess waits twice as long as the one before, up to 15 minutes
    const waits: number[] = []
    for (let i = 0; i < 13; i++) {
      const limited = await attacker.signIn('ann@example.com', 'wrong password')
      expect(limited.statusCode).toBe(429)
      const wait = Number(limited.headers['retry-after'])
      expect(limited.json().error).toMatchObject({
        code: 'ERR_RATE_LIMITED',
        details: { retry_after_seconds: wait },
      })
      waits.push(wait)
      if (i === 0 || i === 12) {
        // asking again before the wait is over changes nothing
        const again = await attacker.signIn('ann@example.com', 'wrong password')
        expect(again.headers['retry-after']).toBe(String(wait))
        // meanwhile the owner signs in from their own address, with the right password, at once
        expect((await owner.signIn('ann@example.com')).statusCode).toBe(200)
      }
      now += wait * 1000
      expect((await attacker.signIn('ann@example.com', 'wrong password')).statusCode).toBe(401)
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900])
    // an unknown account is limited the same way: the limiter does not reveal which emails exist
    const prober = new ConsoleClient(t.app, '192.0.2.1')
    for (let i = 0; i < 5; i++) await prober.signIn('ghost@example.com', 'x')
    expect((await prober.signIn('ghost@example.com', 'x')).headers['retry-after']).toBe('1')
    // a quiet attacker is forgotten: 15 min after the last delay ended, five fresh attempts
    now += 900_000 + 15 * 60_000
    for (let i = 0; i < 5; i++)
      expect((await attacker.signIn('ann@example.com', 'wrong password')).statusCode).toBe(401)
  }, 120_000)

  it("the owner's own typos are forgiven by a success from the same address", async () => {
    const c = await start()
    await c.signUp('ann@example.com')
    for (let i = 0; i < 4; i++)
      expect((await c.signIn('ann@example.com', 'wrong password')).statusCode).toBe(401)
    expect((await c.signIn('ann@example.com')).statusCode).toBe(200)
    for (let i = 0; i < 5; i++)
      expect((await c.signIn('ann@example.com', 'wrong password')).statusCode).toBe(401)
    expect((await c.signIn('ann@example.com')).statusCode).toBe(429)
  })

  it('limits sign-in attempts per address across accounts (20, then a growing delay)', async () => {
    const c = await start()
    await c.signUp('ann@example.com')
    const bot = new ConsoleClient(t.app, '203.0.113.50')
    for (let i = 0; i < 20; i++)
      expect((await bot.signIn(`user${i}@example.com`, 'guess-guess')).statusCode).toBe(401)
    const limited = await bot.signIn('ann@example.com')
    expect(limited.statusCode).toBe(429)
    expect(limited.headers['retry-after']).toBe('1')
    now += 1_000
    expect((await bot.signIn('user20@example.com', 'guess-guess')).statusCode).toBe(401)
    expect((await bot.signIn('user21@example.com', 'guess-guess')).headers['retry-after']).toBe('2')
    expect((await new ConsoleClient(t.app, '203.0.113.51').signIn('ann@example.com')).statusCode).toBe(200)
  }, 90_000)

  it('limits sign-ups per address (10 per hour)', async () => {
    const c = await start()
    for (let i = 0; i < 10; i++) {
      const res = await c.call('POST', '/console/api/signup', {
        email: `x${i}@example.com`,
        password: PASSWORD,
      })
      expect(res.statusCode).toBe(200)
    }
    const res = await c.call('POST', '/console/api/signup', { email: 'y@example.com', password: PASSWORD })
    expect(res.statusCode).toBe(429)
    expect(res.headers['retry-after']).toBe('3600')
  })

  it('sign-out deletes the session on the server and clears the cookie', async () => {
    const c = await start()
    await c.signUp('ann@example.com')
    const cookie = c.cookie!
    const res = await c.call('POST', '/console/api/signout')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ ok: true, data: { signed_out: true } })
    expect(cookiesOf(res)).toEqual([
      'anvil_session=; Path=/console; Max-Age=0; HttpOnly; Secure; SameSite=Strict',
    ])
    // the old cookie, replayed, is worth nothing
    const replay = await t.app.inject({ method: 'GET', url: '/console/api/session', headers: { cookie } })
    expect(replay.statusCode).toBe(401)
  })

  it('renews the session on use (sliding 7 days), ends it after 7 idle days and after 30 days in all', async () => {
    const c = await start()
    await c.signUp('ann@example.com')
    now += 30_000
    const quiet = await c.call('GET', '/console/api/session')
    expect(cookiesOf(quiet)).toEqual([]) // renewal writes at most once a minute
    now = T0 + 2 * DAY
    const renewed = await c.call('GET', '/console/api/session')
    expect(cookiesOf(renewed)[0]).toContain('Max-Age=604800')
    expect(renewed.json().data.expires_at).toBe(new Date(T0 + 9 * DAY).toISOString())
    now = T0 + 8.5 * DAY
    expect((await c.call('GET', '/console/api/session')).statusCode).toBe(200)
    // the absolute cap: used every 6 days, it still ends 30 days after sign-in
    for (const day of [14, 20, 26]) {
      now = T0 + day * DAY
      expect((await c.call('GET', '/console/api/session')).statusCode).toBe(200)
    }
    now = T0 + 29 * DAY
    const capped = await c.call('GET', '/console/api/session')
    expect(cookiesOf(capped)[0]).toContain(`Max-Age=${DAY / 1000}`)
    now = T0 + 30 * DAY
    expect((await c.call('GET', '/console/api/session')).statusCode).toBe(401)

    const idle = new ConsoleClient(t.app)
    await idle.signUp('bob@example.com')
    now += 7 * DAY
    expect((await idle.call('GET', '/console/api/session')).statusCode).toBe(401)
  })

  it('refuses writes without the CSRF token, with a wrong one, or from another origin (403 ERR_CSRF)', async () => {
    const c = await start()
    await c.signUp('ann@example.com')
    const mallory = new ConsoleClient(t.app)
    await mallory.signUp('mallory@example.com')
    const create = (opts: Parameters<ConsoleClient['call']>[3]) =>
      c.call('POST', '/console/api/workspaces', { name: 'W' }, opts)
    const refusals = [
      await create({ csrf: null }),
      await create({ csrf: 'x'.repeat(43) }),
      await create({ csrf: mallory.csrf! }),
      await create({ origin: null }),
      await create({ origin: 'https://evil.example' }),
      await create({ origin: 'null' }),
      await create({ headers: { 'sec-fetch-site': 'cross-site' } }),
      await create({ headers: { 'sec-fetch-site': 'same-site' } }),
    ]
    for (const res of refusals) {
      expect(res.statusCode).toBe(403)
      expect(res.json().error).toMatchObject({ type: 'permission_error', code: 'ERR_CSRF' })
    }
    expect((await c.call('GET', '/console/api/workspaces')).json().data.data).toHaveLength(1)
    // a Referer of our own origin stands in for a missing Origin
    expect(
      (await create({ origin: null, headers: { referer: `${ORIGIN}/console/workspaces` } })).statusCode,
    ).toBe(200)
    expect((await create({ headers: { 'sec-fetch-site': 'same-origin' } })).statusCode).toBe(200)
    // sign-in and sign-up need the same origin too (no login CSRF)
    const login = await new ConsoleClient(t.app).signIn('ann@example.com', PASSWORD, {
      origin: 'https://evil.example',
    })
    expect(login.statusCode).toBe(403)
    expect(cookiesOf(login)).toEqual([])
    const signout = await c.call('POST', '/console/api/signout', undefined, { csrf: null })
    expect(signout.json().error.code).toBe('ERR_CSRF')
  })

  // Every write of the console API, read from the OpenAPI document (so a new one is covered as it lands),
  // with the person's own ids: without the session's token, with another's, or from another origin, each
  // is refused before it runs, and nothing changed.
  it('every console write route refuses a missing, foreign or cross-origin CSRF token (403 ERR_CSRF)', async () => {
    await start()
    const me = await tenant(t.app, 'ann@example.com', '198.51.100.60')
    const other = await tenant(t.app, 'mallory@example.com', '198.51.100.61')
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, unknown>>
    }
    const ids: Record<string, string> = {
      workspace_id: me.workspaceId,
      project_id: me.projectId,
      environment_id: me.environmentId,
      key_id: me.keyId,
    }
    const writes = Object.entries(doc.paths)
      .filter(([path]) => path.startsWith('/console/api/') && !/\/sign(up|in)$/.test(path))
      .flatMap(([path, ops]) =>
        Object.keys(ops)
          .filter((m) => m !== 'get')
          .map((m) => ({ method: m.toUpperCase() as 'POST' | 'PATCH' | 'DELETE', path })),
      )
    expect(writes.map((w) => `${w.method} ${w.path}`)).toEqual(
      expect.arrayContaining([
        'PATCH /console/api/workspaces/{workspace_id}',
        'DELETE /console/api/workspaces/{workspace_id}/projects/{project_id}/environments/{environment_id}',
        'POST /console/api/account/password',
        'POST /console/api/account/delete',
      ]),
    )
    for (const { method, path } of writes) {
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name]!)
      for (const opts of [
        { csrf: null },
        { csrf: other.client.csrf! },
        { origin: 'https://evil.example' },
        { headers: { 'sec-fetch-site': 'cross-site' } },
      ]) {
        const res = await me.client.call(method, url, { name: 'x', password: PASSWORD }, opts)
        expect(res.statusCode, `${method} ${path} ${JSON.stringify(opts)}`).toBe(403)
        expect(res.json().error.code).toBe('ERR_CSRF')
      }
    }
    const session = await me.client.call('GET', '/console/api/session')
    expect(session.statusCode).toBe(200)
    expect((await me.client.call('GET', `/console/api/workspaces/${me.workspaceId}`)).json().data.name).toBe(
      'Acme',
    )
    const keys = (await me.client.call('GET', `/console/api/workspaces/${me.workspaceId}/keys`)).json().data
    expect(keys.data).toEqual([expect.objectContaining({ id: me.keyId, status: 'active' })])
  })

  it('never logs passwords, session tokens or CSRF tokens', async () => {
    const lines: string[] = []
    const stream = new PassThrough()
    stream.on('data', (chunk: Buffer) => lines.push(chunk.toString()))
    const c = await start(stream)
    await c.signUp('ann@example.com')
    await c.signIn('ann@example.com', 'wrong password 123')
    await c.signIn('ann@example.com')
    await c.call('POST', '/console/api/signup', { email: 'b@example.com', password: 'tiny' })
    await c.call('POST', '/console/api/workspaces', { name: 'W' })
    await c.call('POST', '/console/api/signout')
    const log = lines.join('')
    expect(log).toContain('"url":"/console/api/signin"')
    for (const secret of [
      PASSWORD,
      'wrong password 123',
      'tiny',
      c.cookie?.split('=')[1] ?? 'unset',
      c.csrf!,
    ]) {
      expect(log).not.toContain(secret)
    }
  })
})

describe('per-address sign-in buckets', () => {
  it('count IPv4 addresses alone and IPv6 clients by their /64', () => {
    expect(addressBucket('203.0.113.7')).toBe('203.0.113.7')
    expect(addressBucket('::ffff:203.0.113.7')).toBe('203.0.113.7')
    expect(addressBucket('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64')
    expect(addressBucket('2001:0DB8:0000:0001:ffff:1:2:3')).toBe('2001:db8:0:1::/64')
    expect(addressBucket('fe80::1%eth0')).toBe('fe80:0:0:0::/64')
    expect(addressBucket('::1')).toBe('0:0:0:0::/64')
  })
})
