import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../helpers/harness.ts'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'
import { movingPatchJob, sleep } from './jobs-harness.ts'
import { startWorkerProcess, type WorkerProcess } from './worker-process.ts'

// The progress path end to end with `npm run worker` as it runs in production: the operation on the worker
// process's pool thread, the shared slot, the worker's look at the record (job-progress.lua), the gateway's
// GET. The API suite covers the same with the consumer in the test's process, on both backends.
describeRedis('job progress from a real worker process', () => {
  let server: RedisServer
  let gateway: TestApp
  let worker: WorkerProcess | undefined
  beforeAll(async () => {
    server = await startRedis()
    gateway = await startTestApp({ env: { REDIS_URL: server.url } })
  })
  afterAll(async () => {
    await worker?.stop()
    await gateway?.close()
    await server?.stop()
  })

  it('a large patch job is seen running between 0 and 1, never going back, then completed at 1', async () => {
    worker = await startWorkerProcess({
      REDIS_URL: server.url,
      POOL_PAID_THREADS: '1',
      POOL_FREE_THREADS: '1',
      JOBS_PROGRESS_INTERVAL_MS: '20',
    })
    const { job: patchJob, rotated } = movingPatchJob()
    const submitted = await gateway.post('/v1/jobs', patchJob)
    expect(submitted.statusCode).toBe(202)
    const id = submitted.json().data.id as string
    const get = async () =>
      (
        await gateway.app.inject({
          method: 'GET',
          url: `/v1/jobs/${id}`,
          headers: { authorization: `Bearer ${gateway.key}` },
        })
      ).json().data
    const seen: { status: string; progress: number | null }[] = []
    const deadline = Date.now() + 60_000
    let job = await get()
    while (job.status !== 'completed' && job.status !== 'failed' && Date.now() < deadline) {
      seen.push({ status: job.status, progress: job.progress })
      await sleep(10)
      job = await get()
    }
    expect(job.status).toBe('completed')
    expect(job.progress).toBe(1)
    expect(job.result).toEqual(rotated)
    const fractions = [...seen.map((s) => s.progress!), 1]
    for (let i = 1; i < fractions.length; i++) expect(fractions[i]!).toBeGreaterThanOrEqual(fractions[i - 1]!)
    const between = seen.filter((s) => s.progress! > 0 && s.progress! < 1)
    expect(between.length, JSON.stringify(seen)).toBeGreaterThan(0)
    for (const s of between) expect(s.status).toBe('active')
  }, 120_000)
})
