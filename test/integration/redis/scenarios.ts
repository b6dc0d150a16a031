import { expect, it } from 'vitest'
import { type ApiResponse, type Gateway, newWorkspace } from './gateways.ts'

const HIGH = { key_rate_per_second: 100_000, workspace_rate_per_second: 100_000, monthly_quota: 1_000_000 }
const count = (rs: ApiResponse[], status: number) => rs.filter((r) => r.status === status).length
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// Polls until `done` holds; returns the milliseconds it took (fails after `limitMs`).
async function within(limitMs: number, done: () => Promise<boolean>): Promise<number> {
  const start = performance.now()
  while (!(await done())) {
    if (performance.now() - start > limitMs) throw new Error(`not within ${limitMs} ms`)
    await sleep(20)
  }
  return performance.now() - start
}

// The multi-gateway guarantees, for any shared store (one Redis, or a Redis Cluster): limits are exact
// across processes, and key/plan changes reach every gateway within a second.
export function sharedStateScenarios(gateways: () => Gateway[]): void {
  it('600 concurrent requests over the gateways against a monthly quota of 250: exactly 250 admitted', async () => {
    const gs = gateways()
    const { key, workspaceId } = await newWorkspace(gs[0]!, { ...HIGH, monthly_quota: 250 })
    const responses = await Promise.all(Array.from({ length: 600 }, (_, i) => gs[i % gs.length]!.hash(key)))
    expect(count(responses, 200)).toBe(250)
    const refused = responses.filter((r) => r.status === 429)
    expect(refused).toHaveLength(350)
    for (const r of refused) {
      expect(r.body.error?.code).toBe('ERR_QUOTA_EXCEEDED')
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1)
    }
    // every gateway sees the same counters
    const usage = await gs[gs.length - 1]!.admin<{ workspace: object }>(
      'GET',
      `/admin/workspaces/${workspaceId}/usage`,
    )
    expect(usage.workspace).toMatchObject({
      requests: 250,
      refused_quota: 350,
      refused_rate: 0,
      monthly_quota: 250,
    })
  })

  // GCRA with burst = rate admits at most rate × (1 + t) requests in any t seconds, and a fresh bucket
  // admits its whole burst at once: so `rate` ≤ admitted ≤ rate × (1 + elapsed). Real processes on Redis
  // TIME can only be bounded so; the exact counts (burst, refill, across gateways, and TIME to the
  // millisecond) are test/store/redis-limits.test.ts.
  it('per-second caps (key and workspace) hold across gateways within the GCRA bound', async () => {
    const gs = gateways()
    const rate = 20
    const keyCap = await newWorkspace(gs[0]!, { ...HIGH, key_rate_per_second: rate })
    const wsCap = await newWorkspace(gs[0]!, { ...HIGH, workspace_rate_per_second: rate })
    const second = await gs[0]!.admin<{ key: string }>('POST', '/admin/keys', {
      workspace_id: wsCap.workspaceId,
    })
    for (const [label, keys] of [
      ['key cap', [keyCap.key]],
      ['workspace cap, two keys', [wsCap.key, second.key]],
    ] as const) {
      const start = performance.now()
      const responses = await Promise.all(
        Array.from({ length: 300 }, (_, i) => gs[i % gs.length]!.hash(keys[i % keys.length]!)),
      )
      const elapsed = (performance.now() - start) / 1000
      const admitted = count(responses, 200)
      expect(admitted, label).toBeGreaterThanOrEqual(rate)
      expect(admitted, `${label}: ${admitted} in ${elapsed.toFixed(2)} s`).toBeLessThanOrEqual(
        Math.floor(rate * (1 + elapsed)),
      )
      expect(count(responses, 429), label).toBe(300 - admitted)
      expect(responses.every((r) => r.status === 200 || r.body.error?.code === 'ERR_RATE_LIMITED')).toBe(true)
    }
  })

  it('a key revoked through one gateway is refused by the others within 1 s', async () => {
    const gs = gateways()
    const { key, keyId } = await newWorkspace(gs[0]!, HIGH)
    // every gateway has the key in its in-process cache (TTL 30 s), so only the broadcast can drop it
    for (const g of gs) expect((await g.hash(key)).status).toBe(200)
    await gs[0]!.admin('POST', `/admin/keys/${keyId}/revoke`)
    const took = await Promise.all(
      gs.slice(1).map((g) => within(1_000, async () => (await g.hash(key)).status === 401)),
    )
    expect(Math.max(...took)).toBeLessThan(1_000)
  })

  it('a plan change through one gateway applies on the others within 1 s', async () => {
    const gs = gateways()
    const { key, workspaceId } = await newWorkspace(gs[0]!, {}, 'free')
    for (const g of gs)
      expect(String((await g.hash(key)).headers['ratelimit-policy'])).toContain('"second";q=5;')
    await gs[0]!.admin('PATCH', `/admin/workspaces/${workspaceId}`, { plan: 'pro' })
    const took = await Promise.all(
      gs
        .slice(1)
        .map((g) =>
          within(1_000, async () =>
            String((await g.hash(key)).headers['ratelimit-policy']).includes('"second";q=50;'),
          ),
        ),
    )
    expect(Math.max(...took)).toBeLessThan(1_000)
  })
}
