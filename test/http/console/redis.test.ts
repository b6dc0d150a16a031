import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { RedisAccountStore } from '../../../src/accounts/store/redis.ts'
import { RedisStore } from '../../../src/store/redis/redis-store.ts'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { describeRedis, type RedisServer, startRedis } from '../../helpers/redis-server.ts'
import { ConsoleClient } from './console-client.ts'
import { tenant } from './fixtures.ts'

// With REDIS_URL set, what the console creates lives in Redis like everything else the gateway reads:
// keys made in the console authenticate, their calls show in its usage, and revocation refuses them.
describeRedis('the console on the Redis store', () => {
  let server: RedisServer
  let t: TestApp
  beforeAll(async () => {
    server = await startRedis()
    const store = await RedisStore.open({
      target: { url: server.url },
      prefix: `console${randomBytes(4).toString('hex')}`,
    })
    t = await startTestApp({ overrides: { store } })
  })
  afterAll(async () => {
    await t?.close()
    await server?.stop()
  })

  it('create → call → usage → revoke → refused', async () => {
    const me = await tenant(t.app, 'redis@example.com')
    expect(t.runtime.store.kind).toBe('redis')
    expect((await t.runtime.store.getWorkspace(me.workspaceId))?.name).toBe('Acme')
    const call = () => t.post('/v1/hash/sha256', { input: 'x' }, { authorization: `Bearer ${me.key}` })
    expect((await call()).statusCode).toBe(200)
    const ws = `/console/api/workspaces/${me.workspaceId}`
    const usage = (await me.client.call('GET', `${ws}/usage`)).json().data
    expect(usage.workspace.requests).toBe(1)
    expect(usage.keys[0]).toMatchObject({ id: me.keyId, requests: 1 })
    expect((await me.client.call('POST', `${ws}/keys/${me.keyId}/revoke`)).statusCode).toBe(200)
    expect((await call()).json().error.code).toBe('ERR_INVALID_API_KEY')
  })
})

// Two gateways on one Redis: a session started on one is honoured by the other, and so is sign-out.
describeRedis('console sessions across gateways', () => {
  let server: RedisServer
  let a: TestApp
  let b: TestApp
  beforeAll(async () => {
    server = await startRedis()
    a = await startTestApp({ env: { REDIS_URL: server.url } })
    b = await startTestApp({ env: { REDIS_URL: server.url } })
  })
  afterAll(async () => {
    await a?.close()
    await b?.close()
    await server?.stop()
  })

  it('a session from gateway A works on gateway B until it is signed out', async () => {
    const me = await tenant(a.app, 'shared@example.com')
    const onB = new ConsoleClient(b.app)
    onB.cookie = me.client.cookie
    onB.csrf = me.client.csrf
    const listed = await onB.call('GET', '/console/api/workspaces')
    expect(listed.statusCode).toBe(200)
    expect(JSON.stringify(listed.json().data)).toContain(me.workspaceId)
    expect((await me.client.call('POST', '/console/api/signout')).statusCode).toBeLessThan(300)
    expect((await onB.call('GET', '/console/api/workspaces')).statusCode).toBe(401)
  })

  it("per-endpoint usage adds up both gateways' answers; a delete, a password change and an account deletion on A hold on B", async () => {
    const me = await tenant(a.app, 'changes@example.com', '198.51.100.70')
    const onB = new ConsoleClient(b.app, '198.51.100.71')
    expect((await onB.signIn('changes@example.com')).statusCode).toBe(200)
    const call = (t: TestApp) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/hash/sha256',
        headers: { authorization: `Bearer ${me.key}`, 'content-type': 'application/json' },
        payload: '{"input":"x"}',
      })
    expect((await call(a)).statusCode).toBe(200)
    expect((await call(b)).statusCode).toBe(200)
    await Promise.all([a.runtime.endpointUsage.flush(), b.runtime.endpointUsage.flush()])
    const ws = `/console/api/workspaces/${me.workspaceId}`
    const usage = (await onB.call('GET', `${ws}/usage`)).json().data
    expect(usage.endpoints).toEqual([expect.objectContaining({ path: '/v1/hash/{algorithm}', ok: 2 })])

    // the environment, deleted on A once its key is revoked, is gone on B with the key
    expect(
      (await onB.call('DELETE', `${ws}/projects/${me.projectId}/environments/${me.environmentId}`))
        .statusCode,
    ).toBe(409)
    await me.client.call('POST', `${ws}/keys/${me.keyId}/revoke`)
    const env = `${ws}/projects/${me.projectId}/environments/${me.environmentId}`
    expect((await me.client.call('DELETE', env)).statusCode).toBe(200)
    expect((await onB.call('GET', `${ws}/keys`)).json().data.data).toEqual([])
    expect((await call(b)).json().error.code).toBe('ERR_INVALID_API_KEY')

    // a new password on A signs B out; the account deleted on A cannot sign in on B
    const changed = await me.client.call('POST', '/console/api/account/password', {
      current_password: 'correct horse battery staple',
      new_password: 'a new shared passphrase',
    })
    expect(changed.json().data.other_sessions_ended).toBe(1)
    expect((await onB.call('GET', '/console/api/session')).statusCode).toBe(401)
    const deleted = await me.client.call('POST', '/console/api/account/delete', {
      password: 'a new shared passphrase',
    })
    expect(deleted.statusCode).toBe(200)
    expect((await onB.signIn('changes@example.com', 'a new shared passphrase')).statusCode).toBe(401)
    expect(await b.runtime.store.getWorkspace(me.workspaceId)).toBeUndefined()
  })

  it('sign-in limits live in Redis: an attacker on gateway A is slowed on B too, the owner signs in on B', async () => {
    const owner = new ConsoleClient(a.app, '198.51.100.20')
    await owner.signUp('owner@example.com')
    const attackerA = new ConsoleClient(a.app, '203.0.113.66')
    const attackerB = new ConsoleClient(b.app, '203.0.113.66')
    for (let i = 0; i < 5; i++) {
      const res = await (i % 2 === 0 ? attackerA : attackerB).signIn('owner@example.com', 'wrong password')
      expect(res.statusCode).toBe(401)
    }
    for (const attacker of [attackerA, attackerB]) {
      const limited = await attacker.signIn('owner@example.com', 'wrong password')
      expect(limited.statusCode).toBe(429)
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    }
    expect((await new ConsoleClient(b.app, '198.51.100.21').signIn('owner@example.com')).statusCode).toBe(200)
  }, 60_000)
})

// The console's Redis connection is the runtime's (src/runtime.ts): opened with the store's command timeout
// and Redis metrics, part of /readyz, closed on shutdown.
describeRedis('the console accounts connection', () => {
  let server: RedisServer
  let t: TestApp
  beforeAll(async () => {
    server = await startRedis()
    t = await startTestApp({ env: { REDIS_URL: server.url, REDIS_COMMAND_TIMEOUT_MS: '321' } })
  })
  afterAll(async () => {
    await t?.close()
    await server?.stop()
  })

  it('is opened by the runtime, on Redis, and its commands show in the Redis metrics', async () => {
    expect(t.runtime.accounts.kind).toBe('redis')
    const before = await t.runtime.metrics.registry.getSingleMetricAsString(
      'anvil_redis_command_duration_seconds',
    )
    await tenant(t.app, 'metrics@example.com')
    const after = await t.runtime.metrics.registry.getSingleMetricAsString(
      'anvil_redis_command_duration_seconds',
    )
    expect(after).not.toBe(before)
    // the account store's own hit counter (sign-in limits) is a command the store never sends
    expect(after).toMatch(/anvil_redis_command_duration_seconds_count\{[^}]*command="incr"/)
  })

  it('ready() follows the connection, and /readyz is 503 while the accounts connection is down', async () => {
    const own = await RedisAccountStore.open({
      target: { url: server.url },
      policy: { commandTimeoutMs: 321 },
    })
    expect(await own.ready()).toBe(true)
    await own.close()
    expect(await own.ready()).toBe(false)

    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200)
    await t.runtime.accounts.close()
    const down = await t.app.inject({ method: 'GET', url: '/readyz' })
    expect(down.statusCode).toBe(503)
    expect(down.json().error.code).toBe('ERR_UNAVAILABLE')
  })
})
