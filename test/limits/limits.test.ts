import { parseList } from 'structured-headers'
import { afterEach, describe, expect, it } from 'vitest'
import { MemoryStore } from '../../src/store/memory/memory-store.ts'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/harness.ts'

const T0 = Date.UTC(2026, 10, 30, 23, 59, 0)

function policies(header: string | undefined): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {}
  for (const [name, params] of parseList(header ?? '')) out[String(name)] = Object.fromEntries(params)
  return out
}

describe('plans and limits (embedded store)', () => {
  let t: TestApp
  let now = T0
  afterEach(() => t?.close())

  async function start(plan: 'free' | 'pro' | 'business' = 'free') {
    now = T0
    const store = await MemoryStore.open({ dataDir: null, clock: () => now })
    t = await startTestApp({ plan, overrides: { store, clock: () => now } })
  }

  const call = (key: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/hash/sha256',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      payload: '{"input":"x"}',
    })
  const burst = (key: string, n: number) => Promise.all(Array.from({ length: n }, () => call(key)))
  const count = (responses: Awaited<ReturnType<typeof call>>[], status: number) =>
    responses.filter((r) => r.statusCode === status).length
  const override = (overrides: Record<string, number>) =>
    t.admin.inject({
      method: 'PATCH',
      url: `/admin/workspaces/${t.workspaceId}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ overrides }),
    })
  const usage = async () =>
    (
      await t.admin.inject({
        method: 'GET',
        url: `/admin/workspaces/${t.workspaceId}/usage`,
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      })
    ).json().data

  it('per-key cap is exact under 200 concurrent requests', async () => {
    await start('free')
    const responses = await burst(t.key, 200)
    expect(count(responses, 200)).toBe(5)
    const refused = responses.filter((r) => r.statusCode === 429)
    expect(refused).toHaveLength(195)
    for (const r of refused) {
      expect(r.json().error).toMatchObject({ code: 'ERR_RATE_LIMITED', type: 'rate_limit_error' })
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1)
      expect(String(r.headers['retry-after'])).toMatch(/^\d+$/)
    }
    // the bucket refills continuously: 200 ms later exactly one more request fits (5 per second)
    now += 200
    expect(count(await burst(t.key, 10), 200)).toBe(1)
  })

  it('workspace cap is exact across keys, and a key refusal does not charge the workspace', async () => {
    await start('free')
    const a = t.key
    const b = (await t.newKey()).key
    const c = (await t.newKey()).key
    // key a is refused 195 times by its own cap; none of those may use workspace capacity
    expect(count(await burst(a, 200), 200)).toBe(5)
    const rest = await Promise.all([burst(b, 100), burst(c, 100)])
    expect(count(rest.flat(), 200)).toBe(5)
    const refusals = rest.flat().filter((r) => r.statusCode === 429)
    expect(refusals.every((r) => r.json().error.code === 'ERR_RATE_LIMITED')).toBe(true)
  })

  it('monthly quota is exact under 200 concurrent requests; refused requests are not charged', async () => {
    await start('free')
    expect(
      (await override({ monthly_quota: 50, key_rate_per_second: 1000, workspace_rate_per_second: 1000 }))
        .statusCode,
    ).toBe(200)
    const responses = await burst(t.key, 200)
    expect(count(responses, 200)).toBe(50)
    const refused = responses.filter((r) => r.statusCode === 429)
    expect(refused).toHaveLength(150)
    for (const r of refused) expect(r.json().error.code).toBe('ERR_QUOTA_EXCEEDED')
    // Retry-After points at the start of the next UTC month (60 s away at T0)
    expect(refused[0]!.headers['retry-after']).toBe('60')
    const u = await usage()
    expect(u.workspace).toMatchObject({
      requests: 50,
      refused_quota: 150,
      refused_rate: 0,
      monthly_quota: 50,
    })
    expect(u.keys[0]).toMatchObject({ requests: 50, refused_quota: 150 })
    expect(u.month).toBe('2026-11')
  })

  it('quotas reset with the UTC calendar month', async () => {
    await start('free')
    await override({ monthly_quota: 3, key_rate_per_second: 1000, workspace_rate_per_second: 1000 })
    expect(count(await burst(t.key, 5), 200)).toBe(3)
    now = Date.UTC(2026, 11, 1, 0, 0, 0)
    expect(count(await burst(t.key, 5), 200)).toBe(3)
    expect((await usage()).month).toBe('2026-12')
  })

  it('a per-key monthly quota is decided together with the workspace quota', async () => {
    await start('pro')
    const limited = await t.newKey({ monthly_quota: 2 })
    const responses = await burst(limited.key, 10)
    expect(count(responses, 200)).toBe(2)
    const last = responses.find((r) => r.statusCode === 429)!
    expect(last.json().error.code).toBe('ERR_QUOTA_EXCEEDED')
    expect(policies(String(last.headers['ratelimit-policy']))['key-month']).toMatchObject({ q: 2 })
    // the other key of the workspace still has the workspace quota
    expect((await call(t.key)).statusCode).toBe(200)
  })

  it('RateLimit-Policy and RateLimit parse as structured-field lists (draft-11)', async () => {
    await start('pro')
    const res = await call(t.key)
    const policy = policies(String(res.headers['ratelimit-policy']))
    expect(policy).toEqual({
      second: { q: 50, w: 1 },
      'workspace-second': { q: 100, w: 1 },
      month: { q: 1_000_000, w: 30 * 86400 },
    })
    const state = policies(String(res.headers.ratelimit))
    expect(state.second).toEqual({ r: 49, t: 1 })
    expect(state['workspace-second']).toEqual({ r: 99, t: 1 })
    expect(state.month).toEqual({ r: 999_999, t: 60 })
  })

  // Issue 43: test-mode keys drew on the same quota and rate as live ones, with nothing saying so.
  it('test-mode keys are limited apart: live traffic keeps its quota and rate, and the reverse', async () => {
    await start('free')
    expect((await override({ monthly_quota: 3 })).statusCode).toBe(200)
    const live = t.key
    const test = (await t.newKey({ environment: 'staging', mode: 'test' })).key
    expect(test).toMatch(/^anvil_test_/)
    expect(count(await burst(live, 5), 200)).toBe(3)
    const refused = await call(live)
    expect(refused.json().error.code).toBe('ERR_QUOTA_EXCEEDED')
    // the live quota is used up; test mode's is its own, at the plan's figure, and says so in its headers
    const first = await call(test)
    expect(first.statusCode).toBe(200)
    expect(policies(first.headers['ratelimit-policy'] as string).month).toMatchObject({ q: 3 })
    expect(String(first.headers.ratelimit)).toContain('"month";r=2;')
    expect(count(await burst(test, 4), 200)).toBe(2)
    expect((await call(test)).json().error.code).toBe('ERR_QUOTA_EXCEEDED')
    const report = await usage()
    expect(report.workspace).toMatchObject({ requests: 3, refused_quota: 3, monthly_quota: 3 })
    expect(report.test).toMatchObject({ requests: 3, refused_quota: 3, monthly_quota: 3 })
  })

  it("test-mode keys have their own workspace per-second bucket: a test burst leaves live traffic's full", async () => {
    await start('free')
    // free: 5 a second per key, 10 per workspace; two test keys empty test mode's workspace bucket
    const tests = [(await t.newKey({ environment: 'staging', mode: 'test' })).key]
    tests.push((await t.newKey({ environment: 'staging', mode: 'test' })).key)
    const testBurst = (await Promise.all(tests.map((k) => burst(k, 10)))).flat()
    expect(count(testBurst, 200)).toBe(10)
    expect(count(await burst(tests[0]!, 1), 429)).toBe(1)
    // live keys still have all of theirs
    const other = (await t.newKey()).key
    expect(count([...(await burst(t.key, 10)), ...(await burst(other, 10))], 200)).toBe(10)
  })

  it("RateLimit-Policy follows the month's length: the policy kept for a plan is rebuilt when the month changes", async () => {
    await start('pro')
    // November (30 days), then December (31): the same limits, so the same kept policy, but another window
    const november = policies(String((await call(t.key)).headers['ratelimit-policy']))
    expect(november.month).toEqual({ q: 1_000_000, w: 30 * 86400 })
    now = Date.UTC(2026, 11, 1, 0, 0, 1)
    const december = policies(String((await call(t.key)).headers['ratelimit-policy']))
    expect(december.month).toEqual({ q: 1_000_000, w: 31 * 86400 })
  })

  it('plan changes and overrides apply to the next request', async () => {
    await start('free')
    expect(count(await burst(t.key, 20), 200)).toBe(5)
    await t.admin.inject({
      method: 'PATCH',
      url: `/admin/workspaces/${t.workspaceId}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ plan: 'business' }),
    })
    now += 1000
    const res = await call(t.key)
    expect(policies(String(res.headers['ratelimit-policy'])).second).toEqual({ q: 500, w: 1 })
  })
})
