import { Redis } from 'ioredis'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { ADMIN_TOKEN, startTestApp } from '../../helpers/harness.ts'
import { describeRedis, type RedisServer, startRedis } from '../../helpers/redis-server.ts'
import { idempotencySuite } from '../../http/hooks/idempotency-suite.ts'

describeRedis('Idempotency-Key on Redis', () => {
  let server: RedisServer
  beforeAll(async () => {
    server = await startRedis()
  })
  afterAll(() => server?.stop())
  idempotencySuite({ env: () => ({ REDIS_URL: server.url }) })

  it('keeps a created key sealed: neither the Idempotency-Key nor the plaintext key is in Redis', async () => {
    const t = await startTestApp({ env: { REDIS_URL: server.url } })
    const raw = new Redis(server.url)
    try {
      const idempotencyKey = 'create-key-for-acme-0001'
      // the suite above left records of its own (some with a 1 s TTL): only this request's are checked
      const before = new Set(await raw.keys('*idem*'))
      const r = await t.admin.inject({
        method: 'POST',
        url: '/admin/keys',
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          'content-type': 'application/json',
          'idempotency-key': idempotencyKey,
        },
        payload: JSON.stringify({ workspace_id: t.workspaceId }),
      })
      expect(r.statusCode).toBe(200)
      const secret = r.json().data.key as string
      const names = (await raw.keys('*idem*')).filter((name) => !before.has(name))
      expect(names.length).toBeGreaterThan(0)
      // the record, and its scope's index of kept answers (named by hashes too)
      const all = await raw.keys('*idem*')
      expect(all.filter((n) => n.endsWith(':kept')).length).toBeGreaterThan(0)
      for (const name of all) {
        expect(name).not.toContain(idempotencyKey)
        expect(name).not.toContain('admin')
        const type = await raw.type(name)
        const value =
          type === 'string'
            ? ((await raw.get(name)) ?? '')
            : type === 'zset'
              ? (await raw.zrange(name, '0', '-1')).join(' ')
              : JSON.stringify(await raw.hgetall(name))
        expect(value).not.toContain(secret)
        expect(value).not.toContain(secret.slice(-20))
        expect(value).not.toContain(idempotencyKey)
      }
      for (const name of names)
        if ((await raw.type(name)) === 'string') expect(await raw.ttl(name)).toBeGreaterThan(86_000)
    } finally {
      raw.disconnect()
      await t.close()
    }
  })
})
