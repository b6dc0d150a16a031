import { readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { JOB_RECORD_BYTES } from '../../src/jobs/storage.ts'
import { ADMIN_TOKEN } from '../helpers/harness.ts'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'
import { hashJob, type JobsApp, jobsAppStarter } from './jobs-harness.ts'

const MiB = 1024 * 1024
const info = async (redis: Redis, field: string) =>
  Number(new RegExp(`^${field}:(\\d+)`, 'm').exec(await redis.info())![1])

// Issue 36: one pro tenant submitting ~50 jobs of 19.9 MiB filled compose's Redis (1 GB, noeviction) in
// ~50 s, and then every tenant's job submissions, and half of another workspace's plain requests, got 503.
// Here a tenant fills its job storage on a real redis-server with maxmemory set (and on the embedded
// store's disk budget) while another workspace's requests, keys and jobs go on.

// what another workspace must keep getting while its neighbours fill their budgets
async function neighbourUnaffected(h: JobsApp, key: string, workspaceId: string) {
  const plain = await Promise.all(
    Array.from({ length: 60 }, () =>
      h.t.app.inject({
        method: 'POST',
        url: '/v1/hash/sha256',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        payload: '{"input":"neighbour"}',
      }),
    ),
  )
  expect(plain.map((r) => r.statusCode)).toEqual(Array(60).fill(200))
  // a write of the store that decides limits and keys
  const created = await h.t.admin.inject({
    method: 'POST',
    url: '/admin/keys',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ workspace_id: workspaceId }),
  })
  expect(created.statusCode, created.body).toBe(200)
}

const bigHash = (bytes: number, tag: string) => hashJob(`${tag}:${'x'.repeat(bytes)}`)

async function flood(h: JobsApp, key: string, n: number, bytes: number) {
  const answers = await Promise.all(
    Array.from({ length: n }, (_, i) => h.submit(bigHash(bytes, `${i}`), key)),
  )
  return answers.map((r) => ({
    status: r.statusCode,
    code: r.statusCode === 202 ? undefined : r.json().error.code,
  }))
}

async function workspaceWithBudget(h: JobsApp, bytes: number) {
  const w = await h.t.newWorkspace('business')
  await h.override({ max_job_storage_bytes: bytes }, w.workspaceId)
  return w
}

describeRedis('a noisy neighbour on one Redis with maxmemory (jobs and limits share it)', () => {
  let redis: RedisServer
  let raw: Redis
  let h: JobsApp | undefined
  beforeAll(async () => {
    // compose's policy, a smaller budget: job data may take half of it (src/jobs/redis/capacity.ts)
    redis = await startRedis({ args: ['--maxmemory', '64mb', '--maxmemory-policy', 'noeviction'] })
    raw = new Redis(redis.url)
  })
  afterAll(async () => {
    await h?.close()
    raw?.disconnect()
    await redis?.stop()
  })

  it('one tenant at its budget gets 409s; tenants together at the store budget get 503 for jobs only; Redis never refuses a write', async () => {
    // bodies of 2 MiB are read on the one pool thread of a test gateway: room for every one to wait its turn
    const env = { POOL_PAID_QUEUE: '64', POOL_ADMISSION_WAIT_MS: '30000' }
    h = await jobsAppStarter('redis', () => redis.url)({ worker: false, env })
    const metrics = await h.gatewayMetrics()
    expect(metrics).toMatch(new RegExp(`anvil_jobs_storage_max_bytes ${32 * MiB}\\n`))
    const neighbour = await h.t.newWorkspace('business')

    // one tenant, 12 MiB of budget, 20 concurrent 2 MiB submissions: exactly five fit (atomic), the rest 409
    const job = 2 * MiB
    const noisy = await workspaceWithBudget(h, 12 * MiB)
    const answers = await flood(h, noisy.key, 20, job)
    const fits = Math.floor(
      (12 * MiB) / (Buffer.byteLength(JSON.stringify(bigHash(job, '19'))) + JOB_RECORD_BYTES),
    )
    expect(answers.filter((a) => a.status === 202).length, JSON.stringify(answers)).toBe(fits)
    expect(answers.filter((a) => a.status !== 202)).toEqual(
      Array(20 - fits).fill({ status: 409, code: 'ERR_CONFLICT' }),
    )
    expect(await h.t.runtime.jobs.storedBytes(noisy.workspaceId)).toBeLessThanOrEqual(12 * MiB)
    await neighbourUnaffected(h, neighbour.key, neighbour.workspaceId)
    expect((await h.submit(hashJob('mine'), neighbour.key)).statusCode).toBe(202)

    // more tenants, each within its own budget, would fill Redis together (70 MiB): they fill the store's
    // budget, then jobs wait for room (503), and only jobs
    const others = await Promise.all([1, 2, 3, 4, 5].map(() => workspaceWithBudget(h!, 12 * MiB)))
    const all = (await Promise.all(others.map((w) => flood(h!, w.key, 6, job)))).flat()
    expect(all.filter((a) => a.code === 'ERR_JOB_STORAGE_FULL').length).toBeGreaterThan(0)
    expect(
      all.every((a) => a.status === 202 || a.code === 'ERR_JOB_STORAGE_FULL' || a.code === 'ERR_CONFLICT'),
    ).toBe(true)
    // what is left is less than one more of their jobs: a job a little larger has no room
    const full = await h.submit(bigHash(job + 64, 'neighbour'), neighbour.key)
    expect(full.statusCode).toBe(503)
    expect(full.json().error.code).toBe('ERR_JOB_STORAGE_FULL')
    expect((await h.t.runtime.jobs.storedBytes(noisy.workspaceId)) <= 12 * MiB).toBe(true)
    const counted = (await h.gatewayMetrics()).match(/^anvil_jobs_storage_bytes (\d+)$/m)
    expect(Number(counted![1])).toBeLessThanOrEqual(32 * MiB)
    await neighbourUnaffected(h, neighbour.key, neighbour.workspaceId)
    // Redis kept its headroom: it refused no write (no OOM error ever), evicted nothing
    expect(await raw.info('errorstats')).not.toMatch(/errorstat_OOM/)
    expect(await info(raw, 'used_memory')).toBeLessThan(64 * MiB)
    expect(await info(raw, 'evicted_keys')).toBe(0)

    // the workers run the queued jobs: their inputs give way to small results, and there is room again
    await h.startWorker()
    await expect
      .poll(async () => (await h!.submit(hashJob('room again'), neighbour.key)).statusCode, {
        timeout: 60_000,
      })
      .toBe(202)
  })
})

describeRedis('a noisy neighbour on a jobs Redis of their own (JOBS_REDIS_URL)', () => {
  let limits: RedisServer
  let jobs: RedisServer
  let rawJobs: Redis
  let h: JobsApp | undefined
  beforeAll(async () => {
    limits = await startRedis({ args: ['--maxmemory', '64mb', '--maxmemory-policy', 'noeviction'] })
    jobs = await startRedis({ args: ['--maxmemory', '24mb', '--maxmemory-policy', 'noeviction'] })
    rawJobs = new Redis(jobs.url)
  })
  afterAll(async () => {
    await h?.close()
    rawJobs?.disconnect()
    await jobs?.stop()
    await limits?.stop()
  })

  it('job data lives there, sized from its maxmemory; even a jobs Redis that is full leaves limits and keys alone', async () => {
    const start = jobsAppStarter('redis', () => limits.url)
    // first the default: three quarters of the jobs Redis's maxmemory
    h = await start({ worker: false, env: { JOBS_REDIS_URL: jobs.url } })
    expect(await h.gatewayMetrics()).toMatch(new RegExp(`anvil_jobs_storage_max_bytes ${18 * MiB}\\n`))
    const id = (await h.submit(hashJob('where'))).json().data.id as string
    expect(await rawJobs.exists(`anvil:{ws:${h.t.workspaceId}}:job:${id}`)).toBe(1)
    await h.close()

    // then a store budget above the jobs Redis's memory (a misconfiguration): Redis itself refuses, and
    // that refusal is the same clear 503, for jobs only
    h = await start({
      worker: false,
      env: { JOBS_REDIS_URL: jobs.url, JOBS_MAX_STORAGE_BYTES: String(1024 * MiB) },
    })
    const neighbour = await h.t.newWorkspace('business')
    const answers: { status: number; code?: string | undefined }[] = []
    for (let i = 0; i < 8 && !answers.some((a) => a.status === 503); i++)
      answers.push(...(await flood(h, h.t.key, 4, 2 * MiB)))
    const refused = answers.filter((a) => a.status !== 202)
    expect(refused.length).toBeGreaterThan(0)
    expect(refused.every((a) => a.status === 503 && a.code === 'ERR_JOB_STORAGE_FULL')).toBe(true)
    await neighbourUnaffected(h, neighbour.key, neighbour.workspaceId)
  })
})

// st_blocks: what a file takes on disk, whole blocks
async function diskBytes(dir: string): Promise<number> {
  let total = 0
  for (const name of await readdir(dir)) total += (await stat(join(dir, name))).blocks * 512
  return total
}

describe('a noisy neighbour on the embedded store (disk budget)', () => {
  let h: JobsApp | undefined
  afterEach(async () => {
    await h?.close()
    h = undefined
  })

  it('one tenant at its budget gets 409s, the disk budget 503 for jobs only; the count is an upper bound of the disk', async () => {
    const store = 16 * MiB
    h = await jobsAppStarter('embedded')({
      env: { JOBS_MAX_STORAGE_BYTES: String(store), JOBS_CONCURRENCY: '1' },
    })
    const neighbour = await h.t.newWorkspace('business')
    // formatted, a job's data stays about its input's size: the count hardly moves as jobs finish
    const format = (i: number) => ({
      operation: 'json.format',
      params: { input: JSON.stringify({ i, pad: 'x'.repeat(MiB) }) },
    })
    const noisy = await workspaceWithBudget(h, 6 * MiB)
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => h!.submit(format(i), noisy.key)))
    const refused = answers.filter((r) => r.statusCode !== 202)
    expect(refused.length).toBeGreaterThanOrEqual(4)
    for (const r of refused)
      expect(r.json().error).toMatchObject({
        code: 'ERR_CONFLICT',
        details: { limit: 'max_job_storage_bytes' },
      })
    expect(await h.t.runtime.jobs.storedBytes(noisy.workspaceId)).toBeLessThanOrEqual(6 * MiB)
    await neighbourUnaffected(h, neighbour.key, neighbour.workspaceId)
    expect((await h.submit(hashJob('mine'), neighbour.key)).statusCode).toBe(202)

    const others = await Promise.all([1, 2, 3].map(() => workspaceWithBudget(h!, 6 * MiB)))
    const all = (
      await Promise.all(
        others.map((w) => Promise.all(Array.from({ length: 6 }, (_, i) => h!.submit(format(i), w.key)))),
      )
    ).flat()
    expect(all.some((r) => r.statusCode === 503 && r.json().error.code === 'ERR_JOB_STORAGE_FULL')).toBe(true)
    await neighbourUnaffected(h, neighbour.key, neighbour.workspaceId)
    const use = await h.t.runtime.jobs.storedBytes(neighbour.workspaceId)
    expect(use).toBeGreaterThan(0)
    // once every job has run, what the files take, whole blocks included, is within what the ledger
    // counts, within the budget
    const idle = (text: string) =>
      ['waiting', 'active'].every((state) =>
        text.includes(`anvil_jobs_queue_depth{queue="paid",state="${state}"} 0\n`),
      )
    await expect.poll(async () => idle(await h!.gatewayMetrics()), { timeout: 60_000 }).toBe(true)
    const jobsDir = join(h.t.dataDir, 'jobs')
    const counted = Number((await h.gatewayMetrics()).match(/^anvil_jobs_storage_bytes (\d+)$/m)![1])
    expect(counted).toBeLessThanOrEqual(store)
    expect(await diskBytes(jobsDir)).toBeLessThanOrEqual(counted)
  })
})
