import { Redis } from 'ioredis'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { JobRecords } from '../../src/jobs/redis/records.ts'
import type { JobMeta, JobStatus, NewJob } from '../../src/jobs/types.ts'
import type { Page } from '../../src/store/types.ts'
import { commandsDuring } from '../helpers/redis-monitor.ts'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'

const WS = 'ws_list'
const T = Date.UTC(2026, 3, 1, 12)
const TTL = 3_600_000

// byte order, as Redis orders members of one score
const byteOrder = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b))
const newestFirst = (a: JobMeta, b: JobMeta) => b.created_at - a.created_at || byteOrder(b.id, a.id)

// GET /v1/jobs on Redis reads a page from the list of the status asked for (one sorted set per status,
// moved by every script that changes a status), not from every job of the workspace.
describeRedis('the Redis job list: a sorted set per status', () => {
  let server: RedisServer
  let client: Redis
  let records: JobRecords
  const jobs = new Map<string, JobStatus>()
  beforeAll(async () => {
    server = await startRedis()
    client = new Redis(server.url)
    records = new JobRecords(client, 'anvil')
    // ids that sort differently by bytes and by a locale (upper case first in bytes), several per
    // millisecond, so ties in submission time are ordered as Redis orders them
    const ids = ['job_a1', 'job_B2', 'job_c3', 'job_D4', 'job_e5', 'job_F6', 'job_g7', 'job_H8', 'job_i9']
    const statuses: JobStatus[] = ['queued', 'active', 'completed', 'failed', 'cancelled']
    for (const [i, id] of ids.entries()) {
      const job: NewJob = {
        id,
        workspace_id: WS,
        operation: 'hash',
        plan: 'pro',
        tier: 'paid',
        budget_ms: 1000,
        max_result_bytes: 1000,
        max_job_storage_bytes: 1_000_000,
        created_at: T + Math.floor(i / 3),
      }
      expect(await records.create(job, new TextEncoder().encode('{}'))).toBe(true)
      const status = statuses[i % statuses.length]!
      if (status !== 'queued') expect((await records.start(WS, id, T, 0)).state).toBe('run')
      if (status === 'completed') await records.finish(WS, id, { status, result: '{}' }, T + 10, TTL)
      if (status === 'failed') {
        const error = { code: 'ERR_INTERNAL', message: 'x' }
        await records.finish(WS, id, { status, error, reason: 'crash' }, T + 10, TTL)
      }
      if (status === 'cancelled') await records.cancel(WS, id, T + 10, TTL, true)
      jobs.set(id, status)
    }
    // a job that ran, was handed back to the queue, then cancelled while queued
    await records.requeue(WS, 'job_B2')
    jobs.set('job_B2', 'queued')
  })
  afterAll(async () => {
    client?.disconnect()
    await server?.stop()
  })

  it('pages every status from any cursor (a job of any status) exactly as a full sort and filter would', async () => {
    const all = await Promise.all([...jobs.keys()].map((id) => records.readMeta(WS, id)))
    const sorted = (all as JobMeta[]).sort(newestFirst)
    expect(sorted.map((m) => m.status)).toEqual(sorted.map((m) => jobs.get(m.id)))
    for (const status of [undefined, 'queued', 'active', 'completed', 'failed', 'cancelled'] as const) {
      for (const cursor of [undefined, ...sorted.map((m) => m.id)]) {
        for (const limit of [1, 2, 5]) {
          const after =
            cursor === undefined ? sorted : sorted.slice(sorted.findIndex((m) => m.id === cursor) + 1)
          const matching = after.filter((m) => status === undefined || m.status === status)
          const page = await records.list(WS, { status, limit, startingAfter: cursor, now: T })
          const what = `${status} after ${cursor} limit ${limit}`
          expect(
            page?.data.map((m) => m.id),
            what,
          ).toEqual(matching.slice(0, limit).map((m) => m.id))
          expect(page?.has_more, what).toBe(matching.length > limit)
        }
      }
    }
    expect(await records.list(WS, { limit: 2, startingAfter: 'job_nope', now: T })).toBeUndefined()
    expect(
      await records.list(WS, { status: 'failed', limit: 2, startingAfter: 'job_nope', now: T }),
    ).toBeUndefined()
  })

  it('a filtered page reads the records of its own page, not every job of the workspace', async () => {
    const many = 40
    for (let i = 0; i < many; i++) {
      const job: NewJob = {
        id: `job_many${String(i).padStart(3, '0')}`,
        workspace_id: 'ws_many',
        operation: 'hash',
        plan: 'pro',
        tier: 'paid',
        budget_ms: 1000,
        max_result_bytes: 1000,
        max_job_storage_bytes: 1_000_000,
        created_at: T + i,
      }
      await records.create(job, new TextEncoder().encode('{}'))
      await records.start('ws_many', job.id, T, 0)
      // one failed job among many completed ones, the oldest
      const outcome =
        i === 0
          ? {
              status: 'failed' as const,
              error: { code: 'ERR_INTERNAL', message: 'x' },
              reason: 'crash' as const,
            }
          : { status: 'completed' as const, result: '{}' }
      await records.finish('ws_many', job.id, outcome, T + 100, TTL)
    }
    let failed: Page<JobMeta> | undefined
    let completed: Page<JobMeta> | undefined
    const commands = await commandsDuring(server.url, async () => {
      failed = await records.list('ws_many', { status: 'failed', limit: 5, now: T })
      completed = await records.list('ws_many', { status: 'completed', limit: 5, now: T })
    })
    const reads = commands.filter((a) => a[0]?.toLowerCase() === 'hmget')
    expect(failed?.data.map((m) => m.id)).toEqual(['job_many000'])
    expect(completed?.data).toHaveLength(5)
    expect(completed?.has_more).toBe(true)
    // one record for the failed page (all there is), six for the completed one (its five and one more)
    expect(reads).toHaveLength(1 + 6)
  })
})
