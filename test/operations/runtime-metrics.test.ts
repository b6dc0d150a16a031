import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { errorKind } from '../../src/store/redis/instrument.ts'
import { startTestApp, type TestApp } from '../helpers/harness.ts'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'
import { parseSamples, type Sample, sampleValue } from './prom-text.ts'

async function scrape(t: TestApp): Promise<Sample[]> {
  const res = await t.admin.inject({ method: 'GET', url: '/metrics' })
  expect(res.statusCode).toBe(200)
  return parseSamples(res.body)
}

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('Redis error kinds', () => {
  it('classifies timeouts, connection failures and reply errors', () => {
    expect(errorKind(new Error('Command timed out'))).toBe('timeout')
    expect(errorKind(Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' }))).toBe('timeout')
    expect(errorKind(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe(
      'connection',
    )
    expect(errorKind(new Error('Connection is closed.'))).toBe('connection')
    expect(errorKind(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(
      'connection',
    )
    expect(errorKind(Object.assign(new Error('x'), { name: 'MaxRetriesPerRequestError' }))).toBe('connection')
    expect(errorKind(new Error("Cluster isn't ready and enableOfflineQueue options is false"))).toBe(
      'connection',
    )
    const reply = Object.assign(new Error('WRONGTYPE Operation against a key'), { name: 'ReplyError' })
    expect(errorKind(reply)).toBe('other')
    expect(errorKind('not an error')).toBe('other')
  })
})

describe('process metrics on the embedded store', () => {
  let t: TestApp
  afterEach(() => t?.close())

  it('exports event-loop utilization and lag, and no Redis gauge without Redis', async () => {
    t = await startTestApp()
    await scrape(t)
    // keep the loop busy for a moment so the next scrape has something to measure
    const busyUntil = Date.now() + 30
    while (Date.now() < busyUntil) {}
    const samples = await scrape(t)
    const elu = sampleValue(samples, 'anvil_event_loop_utilization_ratio')
    expect(elu).toBeGreaterThan(0)
    expect(elu).toBeLessThanOrEqual(1)
    expect(sampleValue(samples, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThanOrEqual(0)
    expect(sampleValue(samples, 'anvil_redis_up')).toBeUndefined()
  })
})

describeRedis('Redis command metrics (real redis-server)', () => {
  let redis: RedisServer
  let t: TestApp
  beforeAll(async () => {
    // durable: the key must survive the SIGKILL below
    redis = await startRedis({ durable: true })
    t = await startTestApp({ env: { REDIS_URL: redis.url } })
  })
  afterAll(async () => {
    await t?.close()
    await redis?.stop()
  })

  const hash = () => t.post('/v1/hash/sha256', { input: 'x' })

  it('times each command, naming Lua scripts by their defineCommand name', async () => {
    expect((await hash()).statusCode).toBe(200)
    expect((await hash()).statusCode).toBe(200)
    const samples = await scrape(t)
    const consume = { command: 'anvilConsume' }
    expect(sampleValue(samples, 'anvil_redis_command_duration_seconds_count', consume)).toBe(2)
    expect(sampleValue(samples, 'anvil_redis_command_duration_seconds_sum', consume)).toBeGreaterThan(0)
    // the first request missed the key cache: a GET of the hash index, then HGETALLs of key and workspace
    const count = (command: string) =>
      sampleValue(samples, 'anvil_redis_command_duration_seconds_count', { command })
    expect(count('get')).toBeGreaterThanOrEqual(1)
    expect(count('hgetall')).toBeGreaterThanOrEqual(2)
    const names = new Set(
      samples
        .filter((s) => s.name === 'anvil_redis_command_duration_seconds_count')
        .map((s) => s.labels.command),
    )
    expect(names.has('evalsha')).toBe(false)
    expect(sampleValue(samples, 'anvil_redis_up')).toBe(1)
    // at 0 from boot, not absent
    expect(sampleValue(samples, 'anvil_redis_errors_total', { kind: 'connection' })).toBe(0)
  })

  it('counts a hung Redis as timeouts and a dead one as connection errors; the gauge follows', async () => {
    process.kill(redis.child.pid!, 'SIGSTOP')
    let samples: Sample[]
    try {
      expect((await hash()).statusCode).toBe(503)
      // the command's own 500 ms timeout fires just after the request's deadline
      await until(async () => {
        samples = await scrape(t)
        return (sampleValue(samples, 'anvil_redis_errors_total', { kind: 'timeout' }) ?? 0) > 0
      })
      expect(sampleValue(samples!, 'anvil_redis_up')).toBe(0)
    } finally {
      process.kill(redis.child.pid!, 'SIGCONT')
    }

    await redis.kill()
    expect((await hash()).statusCode).toBe(503)
    samples = await scrape(t)
    expect(sampleValue(samples, 'anvil_redis_errors_total', { kind: 'connection' })).toBeGreaterThanOrEqual(1)
    expect(sampleValue(samples, 'anvil_redis_up')).toBe(0)

    await redis.restart()
    await until(async () => sampleValue(await scrape(t), 'anvil_redis_up') === 1)
    expect((await hash()).statusCode).toBe(200)
  })
})
