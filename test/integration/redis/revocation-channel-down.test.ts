import { Redis } from 'ioredis'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { describeRedis, type RedisServer, startRedis } from '../../helpers/redis-server.ts'
import { EXACTNESS, type Gateway, newWorkspace, startGateways } from './gateways.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function within(limitMs: number, done: () => Promise<boolean>): Promise<number> {
  const start = performance.now()
  while (!(await done())) {
    if (performance.now() - start > limitMs) throw new Error(`not within ${limitMs} ms`)
    await sleep(20)
  }
  return performance.now() - start
}

// Revocation reaches every gateway within 1 s even while a gateway's invalidation subscription is down:
// that gateway verifies a cached key older than 1 s again instead of trusting it for KEY_CACHE_TTL_MS.
describeRedis('revocation while the invalidation channel is down (two gateway processes)', () => {
  let redis: RedisServer
  let gateways: Gateway[] = []
  beforeAll(async () => {
    redis = await startRedis()
    gateways = await startGateways(2, { REDIS_URL: redis.url, KEY_CACHE_TTL_MS: '60000', ...EXACTNESS })
  }, 60_000)
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop()))
    await redis?.stop()
  })

  it('a key revoked through gateway A is refused by gateway B, whose subscription is cut, within ~1 s', async () => {
    const [a, b] = gateways as [Gateway, Gateway]
    const { key, keyId } = await newWorkspace(a, {})
    expect((await a.hash(key)).status).toBe(200)
    expect((await b.hash(key)).status).toBe(200)
    const admin = new Redis(redis.url)
    try {
      // every subscriber connection is cut and cannot subscribe again; everything else keeps working
      await admin.call('ACL', 'SETUSER', 'default', '-subscribe')
      await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub')
      // /readyz says so (the subscription is part of readiness)
      await within(3_000, async () => (await b.get('/readyz')).status === 503)
      // B still answers with the key from its cache
      expect((await b.hash(key)).status).toBe(200)
      await a.admin('POST', `/admin/keys/${keyId}/revoke`)
      const took = await within(3_000, async () => (await b.hash(key)).status === 401)
      // bound: 1 s from B's last verification of the key, plus a loaded machine's slack
      expect(took).toBeLessThan(2_000)
      expect((await b.hash(key)).body.error?.code).toBe('ERR_INVALID_API_KEY')
    } finally {
      await admin.call('ACL', 'SETUSER', 'default', '+subscribe')
      admin.disconnect()
    }
    await within(10_000, async () => (await b.get('/readyz')).status === 200)
  })
})
