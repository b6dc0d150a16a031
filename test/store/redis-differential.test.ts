import fc from 'fast-check'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { MemoryStore } from '../../src/store/memory/memory-store.ts'
import { RedisStore } from '../../src/store/redis/redis-store.ts'
import type { ConsumeRequest } from '../../src/store/types.ts'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'

// The Lua limiter must admit exactly what the embedded limiter admits, with the same headers and
// counters: random limits, random request timings (including fractional milliseconds and a month
// boundary in the middle), two keys sharing one workspace, charged and rate-only calls mixed, decisions
// compared one by one.
const step = fc.record({
  advance: fc.oneof(
    fc.constant(0),
    fc.integer({ min: 1, max: 700 }),
    fc.double({ min: 0, max: 50, noNaN: true }),
  ),
  key: fc.constantFrom('key_a', 'key_b'),
  // requests sent together at this instant
  burst: fc.integer({ min: 1, max: 4 }),
  // a job status poll: rate limits only, no quota, no usage (route config charge: 'rate-only')
  rateOnly: fc.boolean(),
})
const scenario = fc.record({
  keyRate: fc.integer({ min: 1, max: 9 }),
  workspaceRate: fc.integer({ min: 1, max: 12 }),
  monthlyQuota: fc.integer({ min: 0, max: 40 }),
  keyQuota: fc.option(fc.integer({ min: 0, max: 25 }), { nil: null }),
  // start up to 3 s before a month boundary, so some runs cross it
  start: fc.integer({ min: 0, max: 3_000 }).map((ms) => Date.UTC(2027, 0, 1) - ms),
  steps: fc.array(step, { minLength: 1, maxLength: 30 }),
})

describeRedis('Redis limiter vs embedded limiter', () => {
  let server: RedisServer
  let redis: RedisStore
  let now = 0
  let run = 0
  beforeAll(async () => {
    server = await startRedis()
    redis = await RedisStore.open({ target: { url: server.url }, prefix: 'diff', clock: () => now })
  })
  afterAll(async () => {
    await redis?.close()
    await server?.stop()
  })

  it('makes identical decisions and counts on random request sequences', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        now = s.start
        const memory = await MemoryStore.open({ dataDir: null, clock: () => now })
        const workspaceId = `ws_run${run++}`
        for (const st of s.steps) {
          now += st.advance
          const req: ConsumeRequest = {
            workspaceId,
            keyId: st.key,
            keyRatePerSecond: s.keyRate,
            workspaceRatePerSecond: s.workspaceRate,
            monthlyQuota: s.monthlyQuota,
            keyMonthlyQuota: st.key === 'key_a' ? s.keyQuota : null,
            ...(st.rateOnly ? { rateOnly: true } : {}),
          }
          const fromRedis = await Promise.all(Array.from({ length: st.burst }, () => redis.consume(req)))
          const fromMemory = await Promise.all(Array.from({ length: st.burst }, () => memory.consume(req)))
          expect(fromRedis).toEqual(fromMemory)
        }
        for (const month of ['2026-12', '2027-01']) {
          expect(await redis.usage(workspaceId, month)).toEqual(await memory.usage(workspaceId, month))
        }
        await memory.close()
      }),
      { numRuns: 60 },
    )
  })
})
