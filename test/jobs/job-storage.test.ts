import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { JOB_RECORD_BYTES as R } from '../../src/jobs/storage.ts'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'
import { hashJob, type JobsApp, jobsAppStarter, type StartJobsApp } from './jobs-harness.ts'

const bodyBytes = (body: unknown) => Buffer.byteLength(JSON.stringify(body))
// a hash job whose body is exactly `bytes` long
function hashJobOf(bytes: number) {
  const job = hashJob('')
  return hashJob('x'.repeat(bytes - bodyBytes(job)))
}
// a json.format job whose result (the formatted text, indented) is larger than its body
const formatJob = (n: number) => ({
  operation: 'json.format',
  params: { input: JSON.stringify(Array.from({ length: n }, (_, i) => ({ i }))), indent: 8 },
})

// Job storage budgets through the API (docs/jobs.md, "Job storage"), on each backend: every budget at its
// bound and one byte past it, what a refusal answers and costs, and the count released with the data.
// Counts are read when jobs have finished (the embedded backend runs them at once), so each bound is set
// from measured results: a finished job counts its result plus the record's fixed cost.
function jobStorageSuite(start: StartJobsApp) {
  let h: JobsApp | undefined
  afterEach(async () => {
    await h?.close()
    h = undefined
  })

  const stored = (app: JobsApp, ws: string) => app.t.runtime.jobs.storedBytes(ws)
  const requests = async (app: JobsApp, ws: string) =>
    (await app.t.runtime.store.usage(ws)).workspace.requests

  async function workspace(app: JobsApp, maxJobStorageBytes: number) {
    const w = await app.t.newWorkspace('business')
    await app.override({ max_job_storage_bytes: maxJobStorageBytes }, w.workspaceId)
    return w
  }

  async function run(app: JobsApp, body: unknown, key: string) {
    const r = await app.submit(body, key)
    expect(r.statusCode, r.body).toBe(202)
    return app.finished(r.json().data.id, key)
  }

  it("a workspace's jobs may fill max_job_storage_bytes exactly; one byte more is 409 {limit, max, stored, bytes}, charged", async () => {
    h = await start()
    const body = hashJobOf(1500)
    const S = bodyBytes(body)
    // what a finished hash job keeps: its result, measured once
    const probe = await workspace(h, 10 ** 9)
    await run(h, body, probe.key)
    const done = await stored(h, probe.workspaceId)
    expect(done).toBeGreaterThan(R)
    expect(done).toBeLessThan(S + R)

    // room for one finished job and one more submission, exactly
    const max = done + S + R
    const at = await workspace(h, max)
    await run(h, body, at.key)
    expect((await run(h, body, at.key)).status).toBe('completed')
    expect(await stored(h, at.workspaceId)).toBe(2 * done)

    const past = await workspace(h, max)
    await run(h, body, past.key)
    const before = await requests(h, past.workspaceId)
    const refused = await h.submit(hashJobOf(S + 1), past.key)
    expect(refused.statusCode).toBe(409)
    expect(refused.json().error).toMatchObject({
      code: 'ERR_CONFLICT',
      details: { limit: 'max_job_storage_bytes', max, stored: done, bytes: S + 1 + R },
    })
    // the client's own refusal: charged like any 4xx, nothing kept
    expect(await requests(h, past.workspaceId)).toBe(before + 1)
    expect(await stored(h, past.workspaceId)).toBe(done)
    expect(await h.gatewayMetrics()).toMatch(
      /anvil_jobs_storage_refusals_total\{limit="max_job_storage_bytes",stage="submit"\} 1\n/,
    )
  })

  it('a result that does not fit in the workspace budget fails its job with ERR_RESULT_TOO_LARGE and is not kept', async () => {
    h = await start()
    const body = formatJob(200)
    const probe = await workspace(h, 10 ** 9)
    const result = (await run(h, body, probe.key)).result
    const kept = await stored(h, probe.workspaceId)
    expect(kept).toBe(bodyBytes(result) + R)
    expect(kept).toBeGreaterThan(bodyBytes(body) + R)

    const at = await workspace(h, kept)
    expect((await run(h, body, at.key)).status).toBe('completed')
    expect(await stored(h, at.workspaceId)).toBe(kept)

    const past = await workspace(h, kept - 1)
    const failed = await run(h, body, past.key)
    expect(failed.status).toBe('failed')
    expect(failed.result).toBeUndefined()
    expect(failed.error).toMatchObject({
      code: 'ERR_RESULT_TOO_LARGE',
      details: { limit: 'max_job_storage_bytes', max: kept - 1, bytes: kept },
    })
    // the job keeps its error (a few hundred bytes) and its record, not its input
    const error = await stored(h, past.workspaceId)
    expect(error).toBe(
      R +
        bodyBytes({
          code: failed.error!.code,
          message: failed.error!.message,
          details: failed.error!.details,
        }),
    )
    await expect
      .poll(() => h!.workerMetrics())
      .toMatch(/anvil_jobs_storage_refusals_total\{limit="max_job_storage_bytes",stage="result"\} 1\n/)
    await expect
      .poll(() => h!.workerMetrics())
      .toMatch(/anvil_jobs_failed_total\{operation="json.format",reason="storage"\} 1\n/)
  })

  it("the count follows the data: a finished job's is released when it expires, read or not", async () => {
    h = await start({ env: { JOBS_RESULT_TTL_SECONDS: '60' } })
    const w = await workspace(h, 10 ** 9)
    const first = await run(h, hashJob('a'), w.key)
    await run(h, hashJob('b'), w.key)
    const two = await stored(h, w.workspaceId)
    expect(two).toBeGreaterThan(2 * R)
    h.advance(60_000)
    // read: 404, and forgotten at once
    expect((await h.get(`/v1/jobs/${first.id}`, w.key)).statusCode).toBe(404)
    // not read: its count leaves with its expiry all the same
    expect(await stored(h, w.workspaceId)).toBe(0)
  })

  it('the store-wide budget (JOBS_MAX_STORAGE_BYTES): exactly full is fine, one byte more is 503 ERR_JOB_STORAGE_FULL, not charged; plain requests go on', async () => {
    // larger than the record's cost, so that what a finished job frees is room for a smaller one
    const body = hashJobOf(R + 2000)
    const S = bodyBytes(body)
    // what a finished hash job keeps: its result, the synchronous endpoint's data (nothing stored there)
    h = await start()
    const { algorithm, ...params } = body.params
    const data = (await h.t.post(`/v1/hash/${algorithm}`, params)).json().data
    const done = bodyBytes(data) + R
    await h.close()

    const max = done + S + R
    h = await start({ env: { JOBS_MAX_STORAGE_BYTES: String(max) } })
    const a = await workspace(h, 10 ** 9)
    const b = await workspace(h, 10 ** 9)
    await run(h, body, a.key)
    expect(await stored(h, a.workspaceId)).toBe(done)
    // the store exactly full with b's submission
    expect((await run(h, body, b.key)).status).toBe('completed')
    // now 2 × done are kept: one byte more than what is left is refused
    const left = max - 2 * done
    const before = await requests(h, b.workspaceId)
    const full = await h.submit(hashJobOf(left - R + 1), b.key)
    expect(full.statusCode).toBe(503)
    expect(full.headers['retry-after']).toBe('60')
    expect(full.json().error.code).toBe('ERR_JOB_STORAGE_FULL')
    // the service's capacity, not the client's doing: refunded
    await expect.poll(() => requests(h!, b.workspaceId)).toBe(before)
    const fits = await h.submit(hashJobOf(left - R), b.key)
    expect(fits.statusCode).toBe(202)
    await h.finished(fits.json().data.id, b.key)
    // plain requests are another matter
    const plain = await h.t.post('/v1/hash/sha256', { input: 'still here' })
    expect(plain.statusCode).toBe(200)
    expect(await h.gatewayMetrics()).toMatch(
      /anvil_jobs_storage_refusals_total\{limit="store",stage="submit"\} 1\n/,
    )
    expect(await h.gatewayMetrics()).toMatch(new RegExp(`anvil_jobs_storage_max_bytes ${max}\\n`))
  })

  it("the store's budget for a result: one that fills it exactly is kept, one byte more fails its job with ERR_JOB_STORAGE_FULL", async () => {
    const body = formatJob(200)
    // what the job will keep: its endpoint's data (nothing is stored for the synchronous call)
    h = await start()
    const kept = bodyBytes((await h.t.post('/v1/json/format', body.params)).json().data) + R
    await h.close()
    for (const [max, status, days] of [
      [kept, 'completed', 0],
      [kept - 1, 'failed', 2],
    ] as const) {
      h = await start({ env: { JOBS_MAX_STORAGE_BYTES: String(max) } })
      // the previous gateway's job (on a shared Redis) has expired for this one
      h.advance(days * 86_400_000)
      const job = await run(h, body, h.t.key)
      expect(job.status).toBe(status)
      if (status === 'completed') {
        expect(await stored(h, h.t.workspaceId)).toBe(kept)
      } else {
        expect(job.error).toMatchObject({ code: 'ERR_JOB_STORAGE_FULL' })
        await expect
          .poll(() => h!.workerMetrics())
          .toMatch(/anvil_jobs_storage_refusals_total\{limit="store",stage="result"\} 1\n/)
      }
      await h.close()
      h = undefined
    }
  })
}

describe('job storage budgets, embedded (DATA_DIR/jobs)', () => {
  jobStorageSuite(jobsAppStarter('embedded'))
})

describeRedis('job storage budgets on Redis', () => {
  let server: RedisServer
  let raw: Redis
  beforeAll(async () => {
    server = await startRedis()
    raw = new Redis(server.url)
  })
  afterAll(async () => {
    raw?.disconnect()
    await server?.stop()
  })

  // the store's count is every workspace's: each test starts on an empty Redis
  beforeEach(async () => {
    await raw.flushall()
  })
  jobStorageSuite(jobsAppStarter('redis', () => server.url))
})

describeRedis('job storage on Redis: the count is an upper bound of the memory, and follows cancels', () => {
  let server: RedisServer
  let raw: Redis
  let h: JobsApp | undefined
  const start = jobsAppStarter('redis', () => server.url)
  beforeAll(async () => {
    server = await startRedis()
    raw = new Redis(server.url)
  })
  afterEach(async () => {
    await h?.close()
    h = undefined
  })
  afterAll(async () => {
    raw?.disconnect()
    await server?.stop()
  })

  const usedMemory = async () => Number(/^used_memory:(\d+)/m.exec(await raw.info('memory'))![1])

  it(`Redis grows by less than the ledger counts: ${R} bytes a job beside its data is enough`, async () => {
    h = await start({ worker: false })
    const storage = async () => await h!.t.runtime.jobs.storedBytes(h!.t.workspaceId)
    // BullMQ's own keys exist once the first job is queued
    await h.submit(hashJob('warm-up'))
    const memory0 = await usedMemory()
    const counted0 = await storage()
    for (let i = 0; i < 200; i++) expect((await h.submit(hashJob(`job ${i}`))).statusCode).toBe(202)
    const queued = { memory: (await usedMemory()) - memory0, counted: (await storage()) - counted0 }
    expect(queued.memory).toBeGreaterThan(0)
    expect(queued.memory).toBeLessThan(queued.counted)
    await h.startWorker()
    await expect
      .poll(() => raw.zcard(`anvil:{ws:${h!.t.workspaceId}}:jobs:inflight`), { timeout: 60_000 })
      .toBe(0)
    const finished = { memory: (await usedMemory()) - memory0, counted: (await storage()) - counted0 }
    expect(finished.memory).toBeLessThan(finished.counted)
  })

  it('a cancelled job counts its record only, until it expires', async () => {
    h = await start({ worker: false, env: { JOBS_RESULT_TTL_SECONDS: '60' } })
    const body = hashJob('cancel me')
    const id = (await h.submit(body)).json().data.id as string
    const storage = () => h!.t.runtime.jobs.storedBytes(h!.t.workspaceId)
    expect(await storage()).toBe(bodyBytes(body) + R)
    const r = await h.t.app.inject({
      method: 'DELETE',
      url: `/v1/jobs/${id}`,
      headers: { authorization: `Bearer ${h.t.key}` },
    })
    expect(r.json().data.status).toBe('cancelled')
    expect(await storage()).toBe(R)
    h.advance(60_000)
    expect(await storage()).toBe(0)
  })
})
