import { afterAll, beforeAll, expect, it } from 'vitest'
import { startTestApp, type TestApp } from '../../helpers/harness.ts'
import { describeRedis, type RedisServer, startRedis } from '../../helpers/redis-server.ts'
import { longPatchJob, sleep } from '../../jobs/jobs-harness.ts'
import { startWorkerProcess, type WorkerProcess } from '../../jobs/worker-process.ts'

// DELETE /v1/jobs/{id} against a real `npm run worker` process: BullMQ cannot kill a running job, so the
// gateway sets a flag on the record; the worker process sees it, aborts the pool task and records the job
// cancelled. Listing reads the workspace's sorted set of jobs on the same Redis.
describeRedis('job cancel and list with a real worker process', () => {
  let server: RedisServer
  let gateway: TestApp
  let worker: WorkerProcess | undefined
  beforeAll(async () => {
    server = await startRedis()
    gateway = await startTestApp({ env: { REDIS_URL: server.url } })
    worker = await startWorkerProcess({
      REDIS_URL: server.url,
      POOL_PAID_THREADS: '1',
      POOL_FREE_THREADS: '1',
      JOBS_CONCURRENCY: '1',
      // the running job's record (progress, cancel request) read every 50 ms rather than 250
      JOBS_PROGRESS_INTERVAL_MS: '50',
    })
  })
  afterAll(async () => {
    await worker?.stop('SIGKILL')
    await gateway?.close()
    await server?.stop()
  })

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) =>
    gateway.app.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${gateway.key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    })
  async function until(id: string, status: string) {
    const deadline = Date.now() + 90_000
    for (;;) {
      const r = await call('GET', `/v1/jobs/${id}`)
      if (r.statusCode === 200 && r.json().data.status === status) return r.json().data
      if (Date.now() > deadline) throw new Error(`job ${id}: ${r.statusCode} ${r.body}`)
      await sleep(50)
    }
  }

  it('stops a running job and cancels a queued one; the list shows both, newest first', async () => {
    const slow = await call('POST', '/v1/jobs', longPatchJob().job)
    expect(slow.statusCode).toBe(202)
    const slowId = slow.json().data.id as string
    // in the operation itself (it has reported progress), with most of its seconds of work still ahead
    const deadline = Date.now() + 90_000
    let running = (await call('GET', `/v1/jobs/${slowId}`)).json().data
    while (!(running.status === 'active' && running.progress > 0)) {
      if (Date.now() > deadline) throw new Error(`job ${slowId} still ${running.status}, progress 0`)
      await sleep(20)
      running = (await call('GET', `/v1/jobs/${slowId}`)).json().data
    }
    expect(running.progress).toBeLessThan(0.5)
    const queued = await call('POST', '/v1/jobs', {
      operation: 'hash',
      params: { algorithm: 'sha256', input: 'x' },
    })
    const queuedId = queued.json().data.id as string
    expect((await call('DELETE', `/v1/jobs/${queuedId}`)).json().data.status).toBe('cancelled')
    const started = performance.now()
    const asked = await call('DELETE', `/v1/jobs/${slowId}`)
    expect(asked.json().data).toMatchObject({ status: 'active', cancel_requested_at: expect.any(String) })
    // until it ends, however: a worker that ignores the request shows here how long the run took
    let stopped = (await call('GET', `/v1/jobs/${slowId}`)).json().data
    while (stopped.status === 'active' && performance.now() - started < 100_000) {
      await sleep(20)
      stopped = (await call('GET', `/v1/jobs/${slowId}`)).json().data
    }
    expect(stopped.status).toBe('cancelled')
    // the worker looks every 50 ms and the abort itself is immediate: well within 1 s, where the rest of
    // the operation (seconds) does not fit
    expect(performance.now() - started).toBeLessThan(1_000)
    expect(stopped.progress).toBeNull()
    // the worker is free again: a new job runs to completion
    const next = await call('POST', '/v1/jobs', {
      operation: 'hash',
      params: { algorithm: 'sha256', input: 'y' },
    })
    const nextId = next.json().data.id as string
    await until(nextId, 'completed')
    const page = (await call('GET', '/v1/jobs?limit=10')).json().data
    expect(page.data.map((j: { id: string }) => j.id)).toEqual([nextId, queuedId, slowId])
    const cancelled = (await call('GET', '/v1/jobs?status=cancelled')).json().data
    expect(cancelled.data.map((j: { id: string }) => j.id)).toEqual([queuedId, slowId])
    expect((await until(queuedId, 'cancelled')).started_at).toBeUndefined()
  }, 240_000)
})
