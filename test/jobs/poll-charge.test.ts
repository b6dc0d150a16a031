import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'
import { h1Request } from '../helpers/tls-client.ts'
import { type JobsApp, jobsAppStarter } from './jobs-harness.ts'

// Issue 16: a job status poll (route config `charge: 'rate-only'`) is rate-limited like any call but
// never charged to the monthly quota nor refused when it is spent; usage does not move. Over a real TLS
// socket, on both stores.
function pollSuite(start: () => ReturnType<ReturnType<typeof jobsAppStarter>>): void {
  let h: JobsApp | undefined
  afterEach(async () => {
    await h?.close()
    h = undefined
  })

  it('polls leave monthly usage unchanged, pass a spent quota, and still get 429 at the rate limit', async () => {
    h = await start()
    const { t } = h
    const call = (method: 'GET' | 'POST', path: string, body?: string) =>
      h1Request(t.url, {
        method,
        path,
        headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body }),
        ca: t.tls!.cert,
      })
    const submitted = await call(
      'POST',
      '/v1/jobs',
      JSON.stringify({ operation: 'hash', params: { algorithm: 'sha256', input: 'x' } }),
    )
    expect(submitted.status).toBe(202)
    const id = submitted.json<{ data: { id: string } }>().data.id
    await h.finished(id)
    const usage = () => t.runtime.store.usage(t.workspaceId)
    const before = await usage()
    expect(before.workspace.requests).toBe(1)
    // the quota is now spent, and the key may make 2 calls a second
    await h.override({ monthly_quota: 1, key_rate_per_second: 2 })
    h.advance(5_000)

    // six polls at once: the bucket of 2 admits the first ones, the key's cap refuses the rest (the clock
    // keeps running underneath, so a loaded machine may refill a token meanwhile: counted loosely)
    const polls = await Promise.all(Array.from({ length: 6 }, () => call('GET', `/v1/jobs/${id}`)))
    const ok = polls.filter((p) => p.status === 200)
    const limited = polls.filter((p) => p.status === 429)
    expect(ok.length + limited.length).toBe(6)
    expect(ok.length).toBeGreaterThanOrEqual(2)
    expect(limited.length).toBeGreaterThanOrEqual(1)
    for (const poll of ok) {
      // the month is reported (spent: r=0) but neither checked nor charged
      expect(poll.headers.ratelimit).toMatch(
        /^"second";r=\d;t=1, "workspace-second";r=\d+;t=1, "month";r=0;t=\d+$/,
      )
    }
    for (const poll of limited) {
      expect(poll.json()).toMatchObject({
        error: { code: 'ERR_RATE_LIMITED', details: { policy: 'key_rate' } },
      })
      expect(poll.headers['retry-after']).toBe('1')
    }
    // nothing moved: not the requests, not the refusal counters, not the day
    expect(await usage()).toEqual(before)

    // a charged call on the same key is refused for the spent quota
    h.advance(5_000)
    const charged = await call('POST', '/v1/hash/sha256', '{"input":"x"}')
    expect(charged.status).toBe(429)
    expect(charged.json()).toMatchObject({ error: { code: 'ERR_QUOTA_EXCEEDED' } })
  })
}

pollSuite(() => jobsAppStarter('embedded')({ listen: true }))

describeRedis('job status polls on Redis', () => {
  let server: RedisServer
  beforeAll(async () => {
    server = await startRedis()
  })
  afterAll(() => server?.stop())
  pollSuite(() => jobsAppStarter('redis', () => server.url)({ listen: true }))
})
