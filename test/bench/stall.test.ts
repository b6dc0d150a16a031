import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stallRun } from '../../bench/stall.ts'
import { craftedCases } from '../../bench/stall-cases.ts'
import { startTestApp, type TestApp } from '../helpers/harness.ts'

// The `stall` bench's heaviest cases against a real gateway (TLS on a loopback port) on the free plan:
// a canary GET /healthz on its own connection never waits more than 250 ms (the bench's target is
// 50 ms; this bound is generous so that a shared CI machine stays green). Before the budgets and cost
// models, the first of these held the event loop 2.2 s.
const BOUND_MS = 250
const HEAVIEST = [
  'format 5.6 KB nested, indent 8',
  'format raw 4 KB, ?indent=8',
  'patch 822 B copy doubling',
  'punycode 1,024-code-point label',
  'normalize NFC, 20,000 marks',
  'diff reversed, just under 16 KiB',
  'JWKS 100 RSA keys, huge e, no kid',
]

let t: TestApp
let key: string

beforeAll(async () => {
  t = await startTestApp({
    listen: true,
    env: {
      POOL_FREE_THREADS: '1',
      PLANS: JSON.stringify({ free: { key_rate_per_second: 1000, workspace_rate_per_second: 1000 } }),
    },
  })
  key = (await t.newWorkspace('free')).key
}, 60_000)

afterAll(async () => {
  await t?.close()
})

describe('stall: worst-case inputs never hold the event loop', () => {
  it('the heaviest crafted cases keep a canary /healthz under 250 ms', async () => {
    const cases = craftedCases('free').filter((c) => HEAVIEST.includes(c.label))
    expect(cases.map((c) => c.label).sort()).toEqual([...HEAVIEST].sort())
    const keys = { free: key, pro: key, business: key }
    // a first pass starts the free pool's thread and loads each op on it (tests run with POOL_WARM off)
    await stallRun(t.url, keys, cases)
    const results = await stallRun(t.url, keys, cases)
    for (const r of results) {
      // answered (a 503 ERR_OVERLOADED is the pool shedding load on a busy machine, not a stall)
      expect([200, 400, 422, 503], r.label).toContain(r.status)
      expect(r.canaryMax, r.label).toBeLessThan(BOUND_MS)
    }
    expect(results.filter((r) => r.status !== 503).length).toBeGreaterThan(HEAVIEST.length / 2)
  }, 120_000)
})
