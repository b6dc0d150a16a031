import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RedisTarget } from '../../src/store/redis/client.ts'
import { RedisStore } from '../../src/store/redis/redis-store.ts'
import type { ConsumeRequest, LimitDecision, Store } from '../../src/store/types.ts'
import {
  describeRedis,
  type RedisCluster,
  type RedisServer,
  startRedis,
  startRedisCluster,
} from '../helpers/redis-server.ts'

// The per-second caps on Redis, through the Store interface (whatever script decides them). Gateways share
// them exactly: two stores on one Redis stand for two gateways, on one injected clock, so every count is
// exact rather than bounded by how long a burst took. Without an injected clock (production) the decision
// runs on Redis's own clock (TIME), checked to the millisecond against that clock.

const T0 = Date.UTC(2026, 5, 15, 12, 0, 0)
const hex = () => randomBytes(6).toString('hex')
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const admitted = (ds: LimitDecision[]) => ds.filter((d) => d.allowed).length

function limits(workspaceId: string, keyId: string, over: Partial<ConsumeRequest> = {}): ConsumeRequest {
  return {
    workspaceId,
    keyId,
    keyRatePerSecond: 1000,
    workspaceRatePerSecond: 1000,
    monthlyQuota: 1_000_000,
    keyMonthlyQuota: null,
    ...over,
  }
}

// n requests sent at once, alternately through each gateway
const across = (gateways: Store[], reqs: ConsumeRequest[], n: number) =>
  Promise.all(
    Array.from({ length: n }, (_, i) => gateways[i % gateways.length]!.consume(reqs[i % reqs.length]!)),
  )

function sharedCaps(name: string, target: () => RedisTarget): void {
  it(`${name}: two gateways on one clock admit exactly the burst, then exactly the refill`, async () => {
    let now = T0
    const prefix = `t${hex()}`
    const gateways = await Promise.all(
      [0, 1].map(() => RedisStore.open({ target: target(), prefix, clock: () => now })),
    )
    try {
      const ws = `ws_${hex()}`
      // key cap 20/s (one token every 50 ms)
      const key = limits(ws, 'key_a', { keyRatePerSecond: 20 })
      const burst = await across(gateways, [key], 300)
      expect(admitted(burst)).toBe(20)
      const refused = burst.filter((d) => !d.allowed)
      expect(refused.every((d) => d.reason === 'key_rate' && d.retryAfter === 1)).toBe(true)
      expect(refused[0]!.keySecond).toEqual({ limit: 20, remaining: 0, reset: 1, window: 1 })
      now += 200
      expect(admitted(await across(gateways, [key], 100))).toBe(4)
      now += 1_000
      expect(admitted(await across(gateways, [key], 100))).toBe(20)

      // workspace cap 30/s over three keys, each well under its own cap
      const ws2 = `ws_${hex()}`
      const keys = ['k1', 'k2', 'k3'].map((k) => limits(ws2, k, { workspaceRatePerSecond: 30 }))
      const shared = await across(gateways, keys, 300)
      expect(admitted(shared)).toBe(30)
      expect(shared.filter((d) => !d.allowed).every((d) => d.reason === 'workspace_rate')).toBe(true)
      now += 100
      expect(admitted(await across(gateways, keys, 60))).toBe(3)
      // the refusals were counted, never charged: exactly the admitted requests are in the month
      expect((await gateways[1]!.usage(ws2)).workspace).toEqual({
        requests: 33,
        refused_rate: 270 + 57,
        refused_quota: 0,
      })
    } finally {
      await Promise.all(gateways.map((g) => g.close()))
    }
  })
}

describeRedis('Redis limiter: per-second caps shared by gateways', () => {
  let server: RedisServer
  let cluster: RedisCluster
  beforeAll(async () => {
    ;[server, cluster] = await Promise.all([startRedis(), startRedisCluster(3)])
  }, 60_000)
  afterAll(async () => {
    await Promise.all([server?.stop(), cluster?.stop()])
  })

  describe('on an injected clock', () => {
    sharedCaps('one Redis', () => ({ url: server.url }))
    sharedCaps('Redis Cluster, 3 masters', () => ({ clusterNodes: cluster.nodes }))
  })

  // Production passes no clock: the script reads Redis TIME, so every gateway decides on one clock. A key
  // capped at 1/s is admitted, then refused exactly until Redis's clock has moved 1 s past that admission.
  // Each call is bracketed by TIME reads on another connection (Redis runs commands one at a time, so the
  // script's clock lies between them): the bounds below are exact, whatever the load.
  it("without an injected clock: Redis's clock (TIME) decides, to the millisecond", async () => {
    const store = await RedisStore.open({ target: { url: server.url }, prefix: `t${hex()}` })
    const clock = new Redis(server.url)
    const redisNow = async () => {
      const [seconds, micros] = await clock.time()
      return Number(seconds) * 1000 + Number(micros) / 1000
    }
    try {
      const ws = `ws_${hex()}`
      const days = new Set<string>()
      for (const keyId of ['key_a', 'key_b', 'key_c']) {
        const req = limits(ws, keyId, { keyRatePerSecond: 1 })
        const before = await redisNow()
        const first = await store.consume(req)
        const after = await redisNow()
        expect(first.allowed).toBe(true)
        days.add(new Date(before).toISOString().slice(0, 10)).add(new Date(after).toISOString().slice(0, 10))
        let refusals = 0
        for (;;) {
          const probeBefore = await redisNow()
          const probe = await store.consume(req)
          const probeAfter = await redisNow()
          if (probe.allowed) {
            // not before 1 s after the first admission
            expect(probeAfter - before).toBeGreaterThanOrEqual(1_000)
            days.add(new Date(probeAfter).toISOString().slice(0, 10))
            break
          }
          refusals++
          // refused only while less than 1 s has passed since the first admission
          expect(probe.reason).toBe('key_rate')
          expect(probeBefore - after).toBeLessThan(1_000)
          if (probeBefore - after > 5_000) throw new Error('never admitted again')
          await sleep(5)
        }
        expect(refusals).toBeGreaterThan(0)
      }
      // charged to the day Redis's clock says
      const usage = await store.usage(ws)
      expect(usage.workspace.requests).toBe(6)
      expect(Object.values(usage.daily).reduce((a, b) => a + b, 0)).toBe(6)
      for (const day of Object.keys(usage.daily)) expect(days).toContain(day)
    } finally {
      clock.disconnect()
      await store.close()
    }
  })
})
