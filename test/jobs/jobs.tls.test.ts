import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'
import { h1Request, h2Request, type RawResponse } from '../helpers/tls-client.ts'
import { editedList } from '../ops/json/diff/large-helpers.ts'
import { type JobsApp, jobsAppStarter, movingPatchJob, type StartJobsApp, sleep } from './jobs-harness.ts'

interface JobData {
  id: string
  status: string
  progress: number | null
  cancel_requested_at?: string
}

// The jobs API over a real TLS socket (HTTP/1.1 and HTTP/2), on each backend: the list's pages and status
// filter, cancelling a queued and a running job, and the polling answer (Retry-After, progress). The API
// suite covers the same in depth through inject; this is the wire.
function jobsOverTls(start: StartJobsApp): void {
  let h: JobsApp
  beforeAll(async () => {
    // one job at a time, so a second one waits; progress stored every 20 ms
    h = await start({ listen: true, env: { JOBS_CONCURRENCY: '1', JOBS_PROGRESS_INTERVAL_MS: '20' } })
  }, 60_000)
  afterAll(() => h?.close())

  const call = (method: string, path: string, body?: unknown, h2 = false): Promise<RawResponse> =>
    (h2 ? h2Request : h1Request)(h.t.url, {
      method,
      path,
      ca: h.t.tls!.cert,
      headers: {
        authorization: `Bearer ${h.t.key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  const submit = async (body: unknown) => {
    const r = await call('POST', '/v1/jobs', body)
    expect(r.status).toBe(202)
    return r.json<{ data: { id: string } }>().data.id
  }
  const poll = async (id: string, h2 = false) => {
    const r = await call('GET', `/v1/jobs/${id}`, undefined, h2)
    expect(r.status).toBe(200)
    return { job: r.json<{ data: JobData }>().data, retryAfter: r.headers['retry-after'] }
  }
  async function until(id: string, done: (job: JobData) => boolean) {
    const deadline = Date.now() + 60_000
    for (;;) {
      const seen = await poll(id)
      if (done(seen.job)) return seen
      if (Date.now() > deadline) throw new Error(`job ${id} still ${seen.job.status}`)
      await sleep(10)
    }
  }

  it('a running job answers Retry-After: 2 and its progress between 0 and 1; a finished one, 1 and no hint', async () => {
    const id = await submit(movingPatchJob().job)
    const running = await until(id, (j) => j.status === 'completed' || (j.progress ?? 0) > 0)
    expect(running.job.status).toBe('active')
    expect(running.retryAfter).toBe('2')
    expect(running.job.progress).toBeGreaterThan(0)
    expect(running.job.progress).toBeLessThan(1)
    const done = await until(id, (j) => j.status === 'completed')
    expect(done.job.progress).toBe(1)
    expect(done.retryAfter).toBeUndefined()
    // the same over HTTP/2
    expect((await poll(id, true)).job).toMatchObject({ id, status: 'completed', progress: 1 })
  }, 60_000)

  it('DELETE cancels a queued job at once and asks a running one to stop', async () => {
    const list = editedList(50_000, 5)
    const slow = await submit({ operation: 'json.diff', params: { left: list.left, right: list.right } })
    await until(slow, (j) => j.status === 'active')
    const queued = await submit({ operation: 'hash', params: { algorithm: 'md5', input: 'later' } })
    const waiting = await poll(queued)
    expect(waiting).toMatchObject({ job: { status: 'queued', progress: 0 }, retryAfter: '1' })
    const cancelled = await call('DELETE', `/v1/jobs/${queued}`, undefined, true)
    expect(cancelled.status).toBe(200)
    expect(cancelled.json<{ data: JobData }>().data).toMatchObject({ status: 'cancelled', progress: null })
    expect(cancelled.headers['retry-after']).toBeUndefined()
    const asked = await call('DELETE', `/v1/jobs/${slow}`)
    expect(asked.status).toBe(200)
    expect(asked.json<{ data: JobData }>().data).toMatchObject({
      status: 'active',
      cancel_requested_at: expect.any(String),
    })
    expect(asked.headers['retry-after']).toBe('2')
    const stopped = await until(slow, (j) => j.status === 'cancelled')
    expect(stopped.retryAfter).toBeUndefined()
    expect((await call('DELETE', `/v1/jobs/${slow}`)).status).toBe(200)
  }, 90_000)

  it('GET /v1/jobs pages newest first and filters by status', async () => {
    const ids: string[] = []
    for (let i = 0; i < 4; i++) {
      ids.push(await submit({ operation: 'hash', params: { algorithm: 'md5', input: `n${i}` } }))
      await sleep(2)
    }
    for (const id of ids) await until(id, (j) => j.status === 'completed')
    const page = async (query: string, h2 = false) => {
      const r = await call('GET', `/v1/jobs?${query}`, undefined, h2)
      expect(r.status).toBe(200)
      const { data, has_more } = r.json<{ data: { data: JobData[]; has_more: boolean } }>().data
      return { ids: data.map((j) => j.id), statuses: data.map((j) => j.status), has_more }
    }
    const first = await page('status=completed&limit=3')
    expect(first).toMatchObject({ has_more: true, statuses: ['completed', 'completed', 'completed'] })
    expect(first.ids).toEqual([...ids].reverse().slice(0, 3))
    const next = await page(`status=completed&limit=3&starting_after=${first.ids[2]}`, true)
    expect(next.ids[0]).toBe(ids[0])
    // the cancelled jobs of the test before, whatever comes after them in the full list
    const cancelled = await page('status=cancelled&limit=10')
    expect(cancelled).toMatchObject({ has_more: false, statuses: ['cancelled', 'cancelled'] })
    // a cursor may be a job of another status
    expect((await page(`status=cancelled&limit=10&starting_after=${ids[0]}`)).ids).toEqual(cancelled.ids)
    const all = await page('limit=100')
    expect(all.ids.slice(0, 4)).toEqual([...ids].reverse())
    const refused = await call('GET', '/v1/jobs?status=done')
    expect(refused.status).toBe(400)
  })
}

describe('jobs over TLS, embedded', () => {
  jobsOverTls(jobsAppStarter('embedded'))
})

describeRedis('jobs over TLS, on Redis and BullMQ', () => {
  let server: RedisServer
  beforeAll(async () => {
    server = await startRedis()
  })
  afterAll(() => server?.stop())
  jobsOverTls(jobsAppStarter('redis', () => server.url))
})
