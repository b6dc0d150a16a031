import { Writable } from 'node:stream'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { recordId } from '../../src/lib/idempotency-seal.ts'
import { startTestApp, type TestApp } from '../helpers/harness.ts'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'

// ioredis puts the failed command on its errors (`command: {name, args}`), and pino's error serializer
// copies every enumerable property: a refused write logged its arguments, which can be a key's hash, a
// kept idempotent answer or a password hash (issue 27). Every logger serializes errors through
// src/observability/log-errors.ts, which keeps the message, type, code and stack, and causes the same way.
describeRedis('logged Redis errors carry no command arguments', () => {
  let redis: RedisServer
  let raw: Redis
  let t: TestApp
  const lines: string[] = []
  beforeAll(async () => {
    redis = await startRedis()
    raw = new Redis(redis.url)
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean))
        done()
      },
    })
    t = await startTestApp({ listen: true, logStream: stream, env: { REDIS_URL: redis.url } })
  }, 60_000)
  afterAll(async () => {
    await t?.close()
    raw?.disconnect()
    await redis?.stop()
  })

  it('a write Redis refuses (out of memory) is logged without its arguments, over the admin API', async () => {
    await t.admin.listen({ port: 0, host: '127.0.0.1' })
    const adminUrl = `http://127.0.0.1:${(t.admin.server.address() as { port: number }).port}`
    const admin = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(adminUrl + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.adminToken}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      })
    // every write refused from now on: the state a full Redis with noeviction is in
    await raw.config('SET', 'maxmemory-policy', 'noeviction')
    await raw.config('SET', 'maxmemory', '1')
    try {
      lines.length = 0
      // a key create (its Lua script's arguments hold the new key's hash) and an idempotent create (its
      // record's id and body)
      const created = await admin('/admin/keys', { workspace_id: t.workspaceId, name: 'secret-name-1' })
      expect(created.status).toBeGreaterThanOrEqual(500)
      const idem = await admin('/admin/workspaces', { name: 'w' }, { 'idempotency-key': 'idem-key-logged-1' })
      expect(idem.status).toBeGreaterThanOrEqual(500)
    } finally {
      await raw.config('SET', 'maxmemory', '0')
    }
    const logged = lines.filter((l) => l.includes('OOM'))
    expect(logged.length, lines.join('\n')).toBeGreaterThanOrEqual(2)
    for (const line of logged) {
      const entry = JSON.parse(line) as { err?: Record<string, unknown> }
      expect(entry.err?.message).toMatch(/OOM/)
      expect(Object.keys(entry.err!).sort()).toEqual(expect.arrayContaining(['message', 'stack', 'type']))
      expect(entry.err).not.toHaveProperty('command')
      expect(line).not.toMatch(/"args"|evalsha|secret-name-1|"fingerprint"/)
      expect(line).not.toContain(recordId('admin', 'idem-key-logged-1'))
    }
  })
})
