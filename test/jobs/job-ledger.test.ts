import fc from 'fast-check'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { MemoryLedger } from '../../src/jobs/embedded/ledger.ts'
import { JobLedger } from '../../src/jobs/redis/ledger.ts'
import type { StorageBudgets } from '../../src/jobs/storage.ts'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'

const FAR = 10 ** 15
const T = 1_700_000_000_000

// The same ledger API on both backends, for the checks they share (the Redis one also expires entries).
interface Ledger {
  reserve(ws: string, id: string, bytes: number, max: StorageBudgets): Promise<unknown>
  set(ws: string, id: string, bytes: number): Promise<void>
  release(ws: string, id: string): Promise<void>
  held(ws: string): Promise<{ workspace: number; store: number }>
}

function onMemory(): Ledger {
  const l = new MemoryLedger()
  return {
    reserve: async (ws, id, bytes, max) => l.reserve(ws, id, bytes, max),
    set: async (ws, id, bytes) => l.set(ws, id, bytes),
    release: async (_ws, id) => l.release(id),
    held: async (ws) => ({ workspace: l.held(ws), store: l.total }),
  }
}

function onRedis(l: JobLedger): Ledger {
  return {
    reserve: (ws, id, bytes, max) => l.reserve(ws, id, bytes, FAR, max, T),
    set: (ws, id, bytes) => l.set(ws, id, bytes, FAR, T),
    release: (ws, id) => l.release(ws, id, T),
    held: (ws) => l.read(ws, T),
  }
}

function ledgerSuite(make: () => Promise<Ledger>) {
  let l: Ledger
  beforeEach(async () => {
    l = await make()
  })

  it("a workspace's count may reach its budget exactly, not one byte past it", async () => {
    const max = { workspace: 1000, store: undefined }
    expect(await l.reserve('ws_a', 'job_1', 600, max)).toEqual({ ok: true })
    expect(await l.reserve('ws_a', 'job_2', 400, max)).toEqual({ ok: true })
    expect(await l.held('ws_a')).toEqual({ workspace: 1000, store: 1000 })
    await l.release('ws_a', 'job_2')
    expect(await l.reserve('ws_a', 'job_3', 401, max)).toEqual({
      ok: false,
      limit: 'max_job_storage_bytes',
      max: 1000,
      stored: 600,
      bytes: 401,
    })
    expect(await l.held('ws_a')).toEqual({ workspace: 600, store: 600 })
    // another workspace has its own budget
    expect(await l.reserve('ws_b', 'job_4', 1000, max)).toEqual({ ok: true })
  })

  it("the store's count may reach its budget exactly, not one byte past it, whichever workspace asks", async () => {
    const max = { workspace: 10_000, store: 1000 }
    expect(await l.reserve('ws_a', 'job_1', 700, max)).toEqual({ ok: true })
    expect(await l.reserve('ws_b', 'job_2', 301, max)).toEqual({
      ok: false,
      limit: 'store',
      max: 1000,
      stored: 700,
      bytes: 301,
    })
    expect(await l.reserve('ws_b', 'job_2', 300, max)).toEqual({ ok: true })
    expect(await l.held('ws_b')).toEqual({ workspace: 300, store: 1000 })
  })

  it("a job's count is replaced, not added to: growing is checked by the difference, shrinking always fits", async () => {
    const max = { workspace: 1000, store: undefined }
    expect(await l.reserve('ws_a', 'job_1', 900, max)).toEqual({ ok: true })
    // its input (900) becomes its result (1000): the difference fits
    expect(await l.reserve('ws_a', 'job_1', 1000, max)).toEqual({ ok: true })
    expect(await l.reserve('ws_a', 'job_1', 1001, max)).toMatchObject({ ok: false, stored: 1000 })
    // what a record already holds is counted whatever the budget, and a count that shrinks always fits
    await l.set('ws_a', 'job_2', 500)
    expect(await l.held('ws_a')).toEqual({ workspace: 1500, store: 1500 })
    expect(await l.reserve('ws_a', 'job_2', 100, max)).toEqual({ ok: true })
    expect(await l.held('ws_a')).toEqual({ workspace: 1100, store: 1100 })
    await l.release('ws_a', 'job_1')
    await l.release('ws_a', 'job_2')
    await l.release('ws_a', 'job_2')
    expect(await l.held('ws_a')).toEqual({ workspace: 0, store: 0 })
  })
}

describe('job storage ledger, in memory (embedded)', () => {
  ledgerSuite(async () => onMemory())
})

describeRedis('job storage ledger on Redis (job-bytes.lua)', () => {
  let server: RedisServer
  let client: Redis
  let n = 0
  beforeAll(async () => {
    server = await startRedis()
    client = new Redis(server.url)
  })
  afterAll(async () => {
    client?.disconnect()
    await server?.stop()
  })

  // each test on a ledger of its own (a prefix of its own)
  ledgerSuite(async () => onRedis(new JobLedger(client, `t${n++}`)))

  it("entries leave at their record's expiry, in batches of 1000 per call, and the totals follow", async () => {
    const ledger = new JobLedger(client, 'expiry')
    const max = { workspace: 10 ** 9, store: undefined }
    // 1,001 entries that expire at T, one that expires a millisecond later
    const pipeline = Array.from({ length: 1001 }, (_, i) =>
      ledger.reserve('ws_a', `job_${i}`, 10, T, max, T - 1000),
    )
    await Promise.all(pipeline)
    await ledger.reserve('ws_b', 'job_late', 7, T + 1, max, T - 1000)
    expect(await ledger.read('ws_a', T - 1)).toEqual({ workspace: 10_010, store: 10_017 })
    // at its expires_at a record is expired (the API answers 404): the entry goes; the first call takes 1000
    expect(await ledger.read('ws_a', T)).toEqual({ workspace: 10, store: 17 })
    expect(await ledger.read('ws_a', T)).toEqual({ workspace: 0, store: 7 })
    expect(await client.hexists('expiry-jobs:{bytes}:total', 'ws_a')).toBe(0)
    expect(await ledger.read('ws_b', T)).toEqual({ workspace: 7, store: 7 })
    expect(await ledger.read('ws_b', T + 1)).toEqual({ workspace: 0, store: 0 })
    expect(await client.zcard('expiry-jobs:{bytes}:expiry')).toBe(0)
    expect(await client.hlen('expiry-jobs:{bytes}:size')).toBe(0)
  })

  it('takes the same decisions as the in-memory ledger (random operations)', async () => {
    const op = fc.record({
      kind: fc.constantFrom('reserve', 'reserve', 'set', 'release'),
      id: fc.constantFrom('job_1', 'job_2', 'job_3', 'job_4', 'job_5'),
      bytes: fc.integer({ min: 0, max: 400 }),
    })
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 40 }),
        fc.integer({ min: 0, max: 1200 }),
        async (ops, cap) => {
          const memory = onMemory()
          const redis = onRedis(new JobLedger(client, `diff${n++}`))
          const max = { workspace: 600, store: cap }
          for (const o of ops) {
            // a job belongs to one workspace (jobs 1-3 to ws_a, 4-5 to ws_b)
            const ws = o.id < 'job_4' ? 'ws_a' : 'ws_b'
            const apply = (l: Ledger) =>
              o.kind === 'reserve'
                ? l.reserve(ws, o.id, o.bytes, max)
                : o.kind === 'set'
                  ? l.set(ws, o.id, o.bytes)
                  : l.release(ws, o.id)
            expect(await apply(redis)).toEqual(await apply(memory))
            expect(await redis.held(ws)).toEqual(await memory.held(ws))
          }
        },
      ),
      { numRuns: 200 },
    )
  })
})
