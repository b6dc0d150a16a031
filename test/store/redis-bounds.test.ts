import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { BATCH_CAP, ConsumeBatcher } from '../../src/store/redis/consume-batch.ts'
import { RedisKeys } from '../../src/store/redis/keys.ts'
import { candidateMonths, RUN_STRIDE } from '../../src/store/redis/limit-reply.ts'
import { RedisStore } from '../../src/store/redis/redis-store.ts'
import { defineScripts } from '../../src/store/redis/scripts.ts'
import type { ConsumeRequest } from '../../src/store/types.ts'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'

// The limit decisions' bounds on Redis, each at the bound and one past it (issue 36 item 6: these passed
// with the bound off by one, because the batch property gives the gateway and the script one clock, and
// builds no batch at exactly the cap).

const hex = () => randomBytes(6).toString('hex')
const request = (over: Partial<ConsumeRequest> = {}): ConsumeRequest => ({
  workspaceId: `ws_${hex()}`,
  keyId: `key_${hex()}`,
  keyRatePerSecond: 1000,
  workspaceRatePerSecond: 1000,
  monthlyQuota: 1_000_000,
  keyMonthlyQuota: null,
  ...over,
})
const DAY_S = 86_400

describeRedis('Redis limit decisions at their bounds', () => {
  let server: RedisServer
  let client: Redis
  // consume.lua's calls, by how many decisions each carried
  const calls: number[] = []
  let batcher: ConsumeBatcher
  beforeAll(async () => {
    server = await startRedis()
    client = new Redis(server.url)
    defineScripts(client)
    batcher = new ConsumeBatcher(
      new RedisKeys(`bounds${hex()}`),
      async (args) => {
        // the reply holds RUN_STRIDE doubles per run of the call, in the calls' order (one connection); every
        // decision here is a run of its own (a workspace each)
        const reply = await client.anvilConsumeBuffer(...args)
        calls.push(reply.length / (RUN_STRIDE * 8))
        return reply
      },
      false,
    )
  })
  afterAll(async () => {
    client?.disconnect()
    await server?.stop()
  })

  it("a month ends at its end instant exclusive: the script's clock on it is the next month's first instant", async () => {
    // the gateway's clock a millisecond before the new year (it declares December, then January); the
    // script's (Redis TIME, when the two clocks disagree) exactly on it
    const newYear = Date.UTC(2027, 0, 1)
    const months = candidateMonths(newYear - 1)
    expect(months.map((m) => m.label)).toEqual(['2026-12', '2027-01'])
    const onIt = await batcher.decide(request(), months, newYear)
    expect(onIt.charge).toMatchObject({ month: '2027-01', day: '01' })
    expect(onIt.month).toMatchObject({ reset: 31 * DAY_S, window: 31 * DAY_S })
    const before = await batcher.decide(request(), months, newYear - 1)
    expect(before.charge).toMatchObject({ month: '2026-12', day: '31' })
    expect(before.month).toMatchObject({ reset: 1, window: 31 * DAY_S })
    // the later of the two declared months ends exclusive too: its end instant is in neither, an error
    await expect(batcher.decide(request(), months, Date.UTC(2027, 1, 1))).rejects.toThrow(
      /outside both months/,
    )
    expect((await batcher.decide(request(), months, Date.UTC(2027, 1, 1) - 1)).charge?.month).toBe('2027-01')
  })

  // Each decision on a workspace of its own: a full call is also the most numbers consume.lua unpacks
  // (2 bounds × 128 hashes + 7 × 64 subjects + 3 × 64 runs = 896; Lua's C stack refuses 8000)
  it(`the batch cap: ${BATCH_CAP} decisions of one turn are one call, ${BATCH_CAP + 1} are two`, async () => {
    const now = Date.UTC(2026, 5, 15, 12)
    const months = candidateMonths(now)
    for (const [n, expected] of [
      [BATCH_CAP, [BATCH_CAP]],
      [BATCH_CAP + 1, [BATCH_CAP, 1]],
      [2 * BATCH_CAP, [BATCH_CAP, BATCH_CAP]],
    ] as const) {
      calls.length = 0
      const decided = await Promise.all(
        Array.from({ length: n }, () => batcher.decide(request(), months, now)),
      )
      expect(decided.every((d) => d.allowed)).toBe(true)
      expect(calls).toEqual(expected)
    }
  })
})

describeRedis('Redis limit decisions: one key under two sets of limits in one batch', () => {
  let server: RedisServer
  let store: RedisStore
  beforeAll(async () => {
    server = await startRedis()
    store = await RedisStore.open({
      target: { url: server.url },
      prefix: `subj${hex()}`,
      clock: () => Date.UTC(2026, 5, 15, 12),
    })
  })
  afterAll(async () => {
    await store?.close()
    await server?.stop()
  })

  it('decisions that differ only in the key quota are two subjects: each is decided under its own', async () => {
    // a key's quota changed between two requests of one turn (0: spent; then lifted)
    const first = request({ keyMonthlyQuota: 0 })
    const second = { ...first, keyMonthlyQuota: 5 }
    const third = { ...first, keyMonthlyQuota: null }
    const [a, b, c] = await Promise.all([store.consume(first), store.consume(second), store.consume(third)])
    expect(a).toMatchObject({ allowed: false, reason: 'key_quota' })
    expect(b).toMatchObject({ allowed: true, keyMonth: { limit: 5, remaining: 4 } })
    expect(c).toMatchObject({ allowed: true, keyMonth: null })
  })
})
