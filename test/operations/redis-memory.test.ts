import { readFile } from 'node:fs/promises'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { parse } from 'yaml'
import { startTestApp, type TestApp } from '../helpers/harness.ts'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'

const ROOT = new URL('../../', import.meta.url)

// Redis in docker-compose.yml has a memory budget and never evicts to stay within it (issue 27): limit
// state must never be dropped to make room (the usage hashes holding the GCRA state and quotas carry a TTL,
// so a volatile-* policy could evict them and hand a tenant a fresh month), and BullMQ needs noeviction.
// A real redis-server runs with the compose file's own arguments; a gateway on it, at the budget, refuses
// limited requests (503, fail closed) and keeps every count, then carries on from them.
describeRedis("docker-compose.yml's Redis memory policy", () => {
  let redis: RedisServer
  let raw: Redis
  let t: TestApp
  let args: string[]
  beforeAll(async () => {
    const compose = parse(await readFile(new URL('docker-compose.yml', ROOT), 'utf8')) as {
      services: Record<string, { command?: string[] }>
    }
    const command = compose.services.redis!.command!
    expect(command[0]).toBe('redis-server')
    // the persistence flags stay the helper's (a temporary directory); the memory ones are the file's
    args = command.slice(1)
    redis = await startRedis({ args })
    raw = new Redis(redis.url)
    t = await startTestApp({ listen: true, env: { REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '5000' } })
  }, 60_000)
  afterAll(async () => {
    await t?.close()
    raw?.disconnect()
    await redis?.stop()
  })

  const call = () =>
    t.app.inject({
      method: 'POST',
      url: '/v1/hash/sha256',
      headers: { authorization: `Bearer ${t.key}`, 'content-type': 'application/json' },
      payload: '{"input":"x"}',
    })

  it('sets a budget with noeviction', async () => {
    expect(args.join(' ')).toMatch(/--maxmemory \d+[kmg]b/)
    expect(await raw.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction'])
    expect(Number((await raw.config('GET', 'maxmemory'))[1])).toBeGreaterThanOrEqual(256 * 1024 * 1024)
  })

  it('at the budget: limited requests are refused (503), nothing is evicted, and counts carry on afterwards', async () => {
    for (let i = 0; i < 3; i++) expect((await call()).statusCode).toBe(200)
    const requests = async () => (await t.runtime.store.usage(t.workspaceId)).workspace.requests
    expect(await requests()).toBe(3)
    const budget = (await raw.config('GET', 'maxmemory'))[1]!
    const stat = async (name: string) => Number(new RegExp(`${name}:(\\d+)`).exec(await raw.info())![1])
    // full: the budget is what is used now, plus some ballast that cannot be evicted
    await raw.set('ballast', 'x'.repeat(1024 * 1024))
    await raw.config('SET', 'maxmemory', String(await stat('used_memory')))
    try {
      for (let i = 0; i < 5; i++) {
        const r = await call()
        expect(r.statusCode).toBe(503)
        expect(r.json().error.code).toBe('ERR_UNAVAILABLE')
      }
      expect(await stat('evicted_keys')).toBe(0)
      expect(await raw.exists('ballast')).toBe(1)
    } finally {
      await raw.config('SET', 'maxmemory', budget)
    }
    expect((await call()).statusCode).toBe(200)
    expect(await requests()).toBe(4)
  })
})
