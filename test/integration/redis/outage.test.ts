import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeRedis, type RedisServer, startRedis } from '../../helpers/redis-server.ts'
import { type Gateway, newWorkspace, startGateways } from './gateways.ts'

interface Sample {
  at: number
  ms: number
  status: number | 'network-error'
  code: string | undefined
  retryAfter: string | undefined
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// Steady traffic from a few concurrent clients, recording every answer and how long it took.
function traffic(g: Gateway, key: string, clients: number) {
  const samples: Sample[] = []
  let running = true
  const loops = Array.from({ length: clients }, async () => {
    while (running) {
      const at = performance.now()
      try {
        const r = await g.hash(key)
        const ms = performance.now() - at
        samples.push({
          at,
          ms,
          status: r.status,
          code: r.body.error?.code,
          retryAfter: r.headers['retry-after'] as string,
        })
      } catch {
        samples.push({
          at,
          ms: performance.now() - at,
          status: 'network-error',
          code: undefined,
          retryAfter: undefined,
        })
      }
      await sleep(5)
    }
  })
  return {
    samples,
    async stop() {
      running = false
      await Promise.all(loops)
    },
  }
}

async function until(limitMs: number, done: () => Promise<boolean>): Promise<number> {
  const start = performance.now()
  while (!(await done())) {
    if (performance.now() - start > limitMs) throw new Error(`not within ${limitMs} ms`)
    await sleep(50)
  }
  return performance.now() - start
}

// The outage policy: while Redis is unreachable every keyed request answers 503 ERR_UNAVAILABLE with
// Retry-After in bounded time, /readyz is 503, /healthz stays 200, the process stays up, and it
// recovers by itself when Redis is back. Redis runs with an fsync'd AOF so its data survives SIGKILL.
describeRedis('Redis outages', () => {
  let redis: RedisServer
  let gateway: Gateway
  let key: string
  beforeAll(async () => {
    redis = await startRedis({ durable: true })
    ;[gateway] = (await startGateways(1, { REDIS_URL: redis.url })) as [Gateway]
    key = (await newWorkspace(gateway, { key_rate_per_second: 100_000, workspace_rate_per_second: 100_000 }))
      .key
  }, 60_000)
  afterAll(async () => {
    await gateway?.stop()
    await redis?.stop()
  })

  function expectOnlyOkOrUnavailable(samples: Sample[]) {
    for (const s of samples) {
      expect([200, 503]).toContain(s.status)
      if (s.status === 503) {
        expect(s.code).toBe('ERR_UNAVAILABLE')
        expect(s.retryAfter).toBe('1')
      }
    }
  }

  it('redis-server killed mid-traffic: bounded 503s, health stays up, recovery after restart', async () => {
    const load = traffic(gateway, key, 4)
    await sleep(300)
    const killedAt = performance.now()
    await redis.kill()
    await sleep(1_000)
    expect((await gateway.get('/healthz')).status).toBe(200)
    const started = performance.now()
    expect((await gateway.get('/readyz')).status).toBe(503)
    expect(performance.now() - started).toBeLessThan(1_000)
    // operators see the loss within the log sink's periodic flush (1 s) of it, even with little else logged
    // (plus 500 ms for the socket's close to reach the gateway and its output this process)
    await until(Math.max(0, killedAt + 1_500 - performance.now()), async () =>
      /redis connection lost/.test(gateway.process.output()),
    )
    await redis.restart()
    const restartedAt = performance.now()
    await until(5_000, async () => (await gateway.get('/readyz')).status === 200)
    const readyAt = performance.now()
    await sleep(300)
    await load.stop()

    const { samples } = load
    expectOnlyOkOrUnavailable(samples)
    expect(Math.max(...samples.map((s) => s.ms))).toBeLessThan(1_000)
    const during = samples.filter((s) => s.at > killedAt + 50 && s.at < restartedAt)
    expect(during.length).toBeGreaterThan(10)
    expect(during.every((s) => s.status === 503)).toBe(true)
    expect(samples.filter((s) => s.at + s.ms < killedAt).every((s) => s.status === 200)).toBe(true)
    // back by itself, with the data Redis kept: the same key works again
    const after = samples.filter((s) => s.at > readyAt)
    expect(after.length).toBeGreaterThan(5)
    expect(after.every((s) => s.status === 200)).toBe(true)
    expect(gateway.process.child.exitCode).toBeNull()
    // and once, not a line per failed request or reconnection attempt
    expect(gateway.process.output().match(/redis connection lost/g)?.length).toBe(1)
  })

  it('a hung Redis (SIGSTOP): requests still answer 503 within the command timeout, then recover', async () => {
    expect((await gateway.hash(key)).status).toBe(200)
    const load = traffic(gateway, key, 4)
    await sleep(200)
    const stoppedAt = performance.now()
    redis.child.kill('SIGSTOP')
    try {
      await sleep(1_200)
      expect((await gateway.get('/healthz')).status).toBe(200)
      expect((await gateway.get('/readyz')).status).toBe(503)
    } finally {
      redis.child.kill('SIGCONT')
    }
    const resumedAt = performance.now()
    await until(3_000, async () => (await gateway.get('/readyz')).status === 200)
    await sleep(300)
    await load.stop()

    const { samples } = load
    expectOnlyOkOrUnavailable(samples)
    // the command timeout (500 ms) bounds every answer, hung server or not
    expect(Math.max(...samples.map((s) => s.ms))).toBeLessThan(1_000)
    const during = samples.filter((s) => s.at > stoppedAt + 50 && s.at + s.ms < resumedAt)
    expect(during.length).toBeGreaterThan(3)
    expect(during.every((s) => s.status === 503)).toBe(true)
    expect(samples.filter((s) => s.at > resumedAt + 300).every((s) => s.status === 200)).toBe(true)
    expect(gateway.process.child.exitCode).toBeNull()
  })
})
