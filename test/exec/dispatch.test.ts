import { afterEach, describe, expect, it } from 'vitest'
import { createApiKey } from '../../src/keys/service.ts'
import { MemoryStore } from '../../src/store/memory/memory-store.ts'
import { ADMIN_TOKEN, startTestApp, type TestApp } from '../helpers/harness.ts'

// a document big enough to cross the pool threshold of json.patch (64 KiB)
const BIG = {
  items: Array.from({ length: 4000 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b'] })),
}
const TEST_OP = [{ op: 'test', path: '/items/1/id', value: 1 }]
// cheap to send, slow to run: 15 copies of a 4000-item array (~360 k values, within the copy budget of
// 16x the request)
const SLOW_PATCH = Array.from({ length: 15 }, (_, i) => ({ op: 'copy', from: '/items', path: `/c${i}` }))

function where(res: { headers: Record<string, unknown> }): string | undefined {
  return /dispatch;desc="([^"]+)"/.exec(String(res.headers['server-timing']))?.[1]
}

describe('inline and pool dispatch', () => {
  let t: TestApp
  afterEach(() => t?.close())

  const override = (workspaceId: string, overrides: Record<string, number>) =>
    t.admin.inject({
      method: 'PATCH',
      url: `/admin/workspaces/${workspaceId}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ overrides }),
    })

  it('runs small work inline and large work on the plan tier pool', async () => {
    t = await startTestApp({ plan: 'pro' })
    const small = await t.post('/v1/json/patch', { document: { a: 1 }, patch: [] })
    expect(small.statusCode).toBe(200)
    // inline work carries no Server-Timing
    expect(small.headers['server-timing']).toBeUndefined()
    const large = await t.post('/v1/json/patch', { document: BIG, patch: TEST_OP })
    expect(large.statusCode).toBe(200)
    expect(large.json().data.result).toEqual(BIG)
    expect(where(large)).toBe('paid')

    const free = await t.newWorkspace('free')
    const freeLarge = await t.post(
      '/v1/text/inspect',
      { input: 'x'.repeat(100_000) },
      { authorization: `Bearer ${free.key}` },
    )
    expect(freeLarge.statusCode).toBe(200)
    expect(where(freeLarge)).toBe('free')
  })

  it('expected errors from a worker keep their code and details', async () => {
    t = await startTestApp()
    const res = await t.post('/v1/json/patch', {
      document: BIG,
      patch: [{ op: 'test', path: '/items/1/id', value: 2 }],
    })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toMatchObject({
      code: 'ERR_PATCH_TEST_FAILED',
      details: { index: 0, path: '/items/1/id' },
    })
  })

  it('a task over the compute budget is killed with 422 ERR_COMPUTE_LIMIT; the pool recovers', async () => {
    t = await startTestApp()
    await override(t.workspaceId, { compute_budget_ms: 150 })
    // grapheme segmentation of ~3 M characters takes far longer than 150 ms
    const slow = await t.post('/v1/text/inspect', { input: 'e\u0301🇫🇷 '.repeat(600_000) })
    expect(slow.statusCode).toBe(422)
    expect(slow.json().error).toMatchObject({
      code: 'ERR_COMPUTE_LIMIT',
      details: { reason: 'time', budget_ms: 150 },
    })
    await override(t.workspaceId, { compute_budget_ms: 30_000 })
    const after = await t.post('/v1/json/patch', { document: BIG, patch: TEST_OP })
    expect(after.statusCode).toBe(200)
    expect(where(after)).toBe('paid')
    const metrics = await (await t.admin.inject({ method: 'GET', url: '/metrics' })).body
    expect(metrics).toMatch(/anvil_pool_tasks_total\{pool="paid",op="text.inspect",outcome="timeout"\} 1/)
    expect(metrics).toMatch(/anvil_pool_worker_restarts_total\{pool="paid"\} 1/)
    // the killed task held its thread for its budget, the next one for its run: both are busy time
    const busy = Number(/anvil_pool_busy_seconds_total\{pool="paid"\} (\S+)/.exec(metrics)?.[1])
    expect(busy).toBeGreaterThanOrEqual(0.15)
    expect(busy).toBeLessThan(30)
    expect(metrics).toMatch(/anvil_pool_busy_seconds_total\{pool="free"\} 0\n/)
  })

  it('a worker out of memory answers 422 {reason: memory}; the process lives on', async () => {
    t = await startTestApp({ env: { POOL_PAID_MEMORY_MB: '32' } })
    // 40 copies of a 60k-item array: far past a 32 MB heap
    const items = Array.from({ length: 60_000 }, (_, i) => ({ id: i, v: 'x'.repeat(16) }))
    const patch = Array.from({ length: 40 }, (_, i) => ({ op: 'copy', from: '/items', path: `/c${i}` }))
    const res = await t.post('/v1/json/patch', { document: { items }, patch })
    expect(res.statusCode).toBe(422)
    expect(res.json().error).toMatchObject({ code: 'ERR_COMPUTE_LIMIT', details: { reason: 'memory' } })
    const after = await t.post('/v1/json/patch', { document: BIG, patch: TEST_OP })
    expect(after.statusCode).toBe(200)
  })

  it('a full queue answers 503 ERR_OVERLOADED with Retry-After', async () => {
    // no waiting for a place: on a quiet machine the slow patches end fast enough for all eight to be
    // admitted in turn within the default wait
    t = await startTestApp({
      env: { POOL_PAID_THREADS: '1', POOL_PAID_QUEUE: '1', POOL_ADMISSION_WAIT_MS: '0' },
    })
    const all = await Promise.all(
      Array.from({ length: 8 }, () => t.post('/v1/json/patch', { document: BIG, patch: SLOW_PATCH })),
    )
    const overloaded = all.filter((r) => r.statusCode === 503)
    expect(overloaded.length).toBeGreaterThan(0)
    for (const r of overloaded) {
      expect(r.json().error).toMatchObject({ code: 'ERR_OVERLOADED', type: 'api_error' })
      expect(r.headers['retry-after']).toBe('1')
    }
    // one workspace holds at most half the places for bodies still arriving (fair admission): 1 of the 2
    expect(all.filter((r) => r.statusCode === 200).length).toBeGreaterThanOrEqual(1)
  })

  it('a free-tier flood cannot take the paid pool: paid work still runs on paid threads', async () => {
    // no waiting for a place: the free pool's 3 places (1 thread + 2 queued) are all the flood gets, however
    // fast a quiet machine runs each task (with a wait, a fast enough thread admits the whole flood in turn)
    t = await startTestApp({
      plan: 'pro',
      env: { POOL_FREE_THREADS: '1', POOL_FREE_QUEUE: '2', POOL_ADMISSION_WAIT_MS: '0' },
    })
    const free = await t.newWorkspace('free')
    await override(free.workspaceId, { key_rate_per_second: 1000, workspace_rate_per_second: 1000 })
    const heavy = 'e\u0301🇫🇷 '.repeat(20_000)
    const flood = Array.from({ length: 12 }, () =>
      t.post('/v1/text/inspect', { input: heavy }, { authorization: `Bearer ${free.key}` }),
    )
    const paid = await t.post('/v1/text/inspect', { input: heavy })
    const floodResults = await Promise.all(flood)
    expect(paid.statusCode).toBe(200)
    expect(where(paid)).toBe('paid')
    for (const r of floodResults.filter((r) => r.statusCode === 200)) expect(where(r)).toBe('free')
    // the free queue overflowed, the paid request was not queued behind it
    expect(floodResults.some((r) => r.statusCode === 503)).toBe(true)
  })

  it('a workspace named in DEDICATED_POOLS gets its own pool', async () => {
    const store = await MemoryStore.open({ dataDir: null })
    const ws = await store.createWorkspace({ name: 'vip', plan: 'business' })
    const created = await createApiKey(store, { workspace_id: ws.id })
    if (!created.ok) throw new Error(created.reason)
    t = await startTestApp({ overrides: { store }, env: { DEDICATED_POOLS: `${ws.id}:1` } })
    const res = await t.post(
      '/v1/json/patch',
      { document: BIG, patch: TEST_OP },
      { authorization: `Bearer ${created.key}` },
    )
    expect(res.statusCode).toBe(200)
    expect(where(res)).toBe('dedicated-1')
    expect(where(await t.post('/v1/json/patch', { document: BIG, patch: TEST_OP }))).toBe('paid')
  })
})
