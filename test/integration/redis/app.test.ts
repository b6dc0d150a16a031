import { randomBytes } from 'node:crypto'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { MemoryStore } from '../../../src/store/memory/memory-store.ts'
import { RedisStore } from '../../../src/store/redis/redis-store.ts'
import type { Store } from '../../../src/store/types.ts'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../../helpers/harness.ts'
import { describeRedis, type RedisServer, startRedis } from '../../helpers/redis-server.ts'

const T0 = Date.UTC(2026, 10, 30, 23, 59, 0)

// What a client sees of one response, limits-wise.
interface Seen {
  status: number
  code: string | undefined
  policy: string
  state: string
  retryAfter: string | undefined
}

describeRedis('the gateway on Redis (in-process, injected clock)', () => {
  let server: RedisServer
  const apps: TestApp[] = []
  let now = T0
  beforeAll(async () => {
    server = await startRedis()
  })
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()))
  })
  afterAll(() => server?.stop())

  async function start(kind: 'memory' | 'redis', plan: 'free' | 'pro' = 'free'): Promise<TestApp> {
    const clock = () => now
    const store: Store =
      kind === 'memory'
        ? await MemoryStore.open({ dataDir: null, clock })
        : await RedisStore.open({
            target: { url: server.url },
            prefix: `app${randomBytes(4).toString('hex')}`,
            clock,
          })
    const t = await startTestApp({ plan, overrides: { store, clock } })
    apps.push(t)
    return t
  }

  const call = async (t: TestApp, key = t.key): Promise<Seen> => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/v1/hash/sha256',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"input":"x"}',
    })
    return {
      status: r.statusCode,
      code: r.statusCode === 200 ? undefined : r.json().error.code,
      policy: String(r.headers['ratelimit-policy']),
      state: String(r.headers.ratelimit),
      retryAfter: r.headers['retry-after'] as string | undefined,
    }
  }
  // concurrent requests: compared as a multiset, since which of them wins is a race in both stores
  const burst = async (t: TestApp, n: number, key?: string) =>
    (await Promise.all(Array.from({ length: n }, () => call(t, key)))).map((s) => JSON.stringify(s)).sort()
  const admin = (t: TestApp, method: 'GET' | 'PATCH', url: string, body?: unknown) =>
    t.admin.inject({
      method,
      url,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    })

  // The same story told to a gateway on each store: caps, refill, quota, month rollover, key quota.
  async function story(kind: 'memory' | 'redis') {
    now = T0
    const t = await start(kind)
    const seen: unknown[] = []
    seen.push(await burst(t, 40))
    now += 200
    seen.push(await burst(t, 5))
    await admin(t, 'PATCH', `/admin/workspaces/${t.workspaceId}`, {
      overrides: { monthly_quota: 12, key_rate_per_second: 1000, workspace_rate_per_second: 1000 },
    })
    now += 1000
    seen.push(await burst(t, 20))
    const limited = await t.newKey({ monthly_quota: 2 })
    now = Date.UTC(2026, 11, 1, 0, 0, 0)
    seen.push(await burst(t, 4, limited.key))
    seen.push(await burst(t, 15))
    const usage = (await admin(t, 'GET', `/admin/workspaces/${t.workspaceId}/usage?month=2026-11`)).json()
      .data
    const current = (await admin(t, 'GET', `/admin/workspaces/${t.workspaceId}/usage`)).json().data
    // ids differ between the two runs; everything else must not
    const anonymous = (u: { keys: { id: string; prefix: string }[] }) => ({
      ...u,
      keys: u.keys.map(({ id: _id, prefix: _prefix, ...rest }) => rest),
    })
    seen.push(anonymous(usage), anonymous(current))
    return seen
  }

  it('answers exactly as the embedded store does: statuses, RateLimit headers, Retry-After, usage', async () => {
    const onRedis = await story('redis')
    const onMemory = await story('memory')
    expect(onRedis).toEqual(onMemory)
    const first = (onRedis[0] as string[]).map((s) => JSON.parse(s) as Seen)
    expect(first.filter((s) => s.status === 200)).toHaveLength(5)
    expect(first.filter((s) => s.code === 'ERR_RATE_LIMITED')).toHaveLength(35)
    // November: 6 admitted before the quota override, then the quota of 12 allowed 6 more
    expect(onRedis[5]).toMatchObject({ month: '2026-11', workspace: { requests: 12, monthly_quota: 12 } })
    const december = onRedis[6] as { month: string; workspace: { requests: number }; daily: object }
    expect(december).toMatchObject({
      month: '2026-12',
      workspace: { requests: 12 },
      daily: { '2026-12-01': 12 },
    })
    const rollover = (onRedis[4] as string[]).map((s) => JSON.parse(s) as Seen)
    expect(rollover.filter((s) => s.status === 200)).toHaveLength(10)
    expect(rollover.find((s) => s.code === 'ERR_QUOTA_EXCEEDED')?.retryAfter).toBe(String(31 * 86400))
  })

  it('revocation and rotation take effect on the next request', async () => {
    now = T0
    const t = await start('redis', 'pro')
    const k = await t.newKey()
    expect((await call(t, k.key)).status).toBe(200)
    const revoke = await t.admin.inject({
      method: 'POST',
      url: `/admin/keys/${k.id}/revoke`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    })
    expect(revoke.statusCode).toBe(200)
    expect((await call(t, k.key)).status).toBe(401)
    const old = await t.newKey()
    expect((await call(t, old.key)).status).toBe(200)
    const rotated = await t.admin.inject({
      method: 'POST',
      url: `/admin/keys/${old.id}/rotate`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ grace_seconds: 60 }),
    })
    const fresh = rotated.json().data.key as string
    expect((await call(t, fresh)).status).toBe(200)
    expect((await call(t, old.key)).status).toBe(200)
    now += 60_000
    expect((await call(t, old.key)).status).toBe(401)
    expect((await call(t, fresh)).status).toBe(200)
  })
})
