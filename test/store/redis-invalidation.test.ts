import { Redis } from 'ioredis'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { generateKey, hashKey, keyPrefix } from '../../src/keys/format.ts'
import { KeyVerifier } from '../../src/keys/verify.ts'
import { RedisStore } from '../../src/store/redis/redis-store.ts'
import type { StoreEvent } from '../../src/store/types.ts'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function until(limitMs: number, done: () => boolean | Promise<boolean>): Promise<number> {
  const start = performance.now()
  while (!(await done())) {
    if (performance.now() - start > limitMs) throw new Error(`not within ${limitMs} ms`)
    await sleep(10)
  }
  return performance.now() - start
}

// Two stores on one Redis stand for two gateways: what one changes, the other hears over pub/sub.
describeRedis('Redis invalidation between gateways', () => {
  let server: RedisServer
  const stores: RedisStore[] = []
  beforeAll(async () => {
    server = await startRedis({ durable: true })
  })
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()))
  })
  afterAll(() => server?.stop())

  async function open(prefix: string): Promise<RedisStore> {
    const s = await RedisStore.open({ target: { url: server.url }, prefix })
    stores.push(s)
    return s
  }

  async function keyIn(s: RedisStore) {
    const ws = await s.createWorkspace({ name: 'w', plan: 'pro' })
    const project = await s.ensureProject(ws.id, 'default')
    const env = await s.ensureEnvironment(project.id, 'production', 'live')
    const secret = generateKey('live')
    const record = await s.createKey({
      workspace_id: ws.id,
      project_id: project.id,
      environment_id: env.id,
      mode: 'live',
      hash: hashKey(secret),
      prefix: keyPrefix(secret),
      name: null,
      families: null,
      allowed_cidrs: null,
      expires_at: null,
      monthly_quota: null,
    })
    return { ws, record, secret }
  }

  it('a revocation on one store drops the cached key of another at once; the origin hears it once', async () => {
    const [a, b] = [await open('inv1'), await open('inv1')]
    const { ws, record, secret } = await keyIn(a)
    const seenA: StoreEvent[] = []
    const seenB: StoreEvent[] = []
    a.subscribe((e) => seenA.push(e))
    b.subscribe((e) => seenB.push(e))
    // b's verifier caches the key for a minute: only the broadcast can make it let go
    const verifier = new KeyVerifier(b, { cacheSize: 100, cacheTtlMs: 60_000 })
    expect((await verifier.verify(secret)).valid).toBe(true)
    expect((await verifier.verify(secret)).cached).toBe(true)
    await a.updateKey(record.id, { revoked_at: new Date().toISOString() })
    const took = await until(1_000, () => seenB.length > 0)
    expect(took).toBeLessThan(1_000)
    expect(seenB).toEqual([{ type: 'key', hash: record.hash }])
    expect(await verifier.verify(secret)).toMatchObject({ valid: false, reason: 'revoked', cached: false })
    await a.updateWorkspace(ws.id, { plan: 'business' })
    await until(1_000, () => seenB.length === 2)
    expect(seenB[1]).toEqual({ type: 'workspace', id: ws.id })
    await sleep(100)
    expect(seenA).toEqual([
      { type: 'key', hash: record.hash },
      { type: 'workspace', id: ws.id },
    ])
    verifier.close()
  })

  it('stores with another prefix do not hear each other', async () => {
    const [a, other] = [await open('inv2'), await open('inv2-other')]
    const { record } = await keyIn(a)
    const seen: StoreEvent[] = []
    other.subscribe((e) => seen.push(e))
    await a.updateKey(record.id, { revoked_at: new Date().toISOString() })
    await sleep(200)
    expect(seen).toEqual([])
  })

  it('after its subscription was interrupted, a store tells its listeners to drop everything', async () => {
    const s = await open('inv3')
    const seen: StoreEvent[] = []
    s.subscribe((e) => seen.push(e))
    expect(await s.ready()).toBe(true)
    await server.kill()
    await until(2_000, async () => !(await s.ready()))
    await server.restart()
    await until(5_000, () => seen.some((e) => e.type === 'reset'))
    expect(seen).toEqual([{ type: 'reset' }])
    await until(2_000, () => s.ready())
    // and the subscription works again
    const other = await open('inv3')
    const { record } = await keyIn(other)
    await other.updateKey(record.id, { revoked_at: new Date().toISOString() })
    await until(1_000, () => seen.length === 2)
    expect(seen[1]).toEqual({ type: 'key', hash: record.hash })
  })

  it('while its subscription is down, a cached key older than 1 s is verified again: a revocation lands within ~1 s', async () => {
    const [a, b] = [await open('inv4'), await open('inv4')]
    const { record, secret } = await keyIn(a)
    const verifier = new KeyVerifier(b, { cacheSize: 100, cacheTtlMs: 60_000 })
    const admin = new Redis(server.url)
    try {
      expect((await verifier.verify(secret)).valid).toBe(true)
      expect(b.invalidationLive()).toBe(true)
      // the subscription is cut and cannot come back (SUBSCRIBE is refused), while every other command,
      // PUBLISH included, still works: the revocation's broadcast is lost for b
      await admin.call('ACL', 'SETUSER', 'default', '-subscribe')
      await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub')
      await until(2_000, () => !b.invalidationLive())
      // a fresh entry (under 1 s old) is still answered from the cache
      expect((await verifier.verify(secret)).valid).toBe(true)
      await sleep(50)
      expect(await verifier.verify(secret)).toMatchObject({ valid: true, cached: true })
      await a.updateKey(record.id, { revoked_at: new Date().toISOString() })
      const revokedAt = performance.now()
      const took = await until(3_000, async () => !(await verifier.verify(secret)).valid)
      expect(await verifier.verify(secret)).toMatchObject({ valid: false, reason: 'revoked' })
      // the bound is 1 s from the entry's last verification; generous for a loaded machine
      expect(took).toBeLessThan(2_000)
      expect(performance.now() - revokedAt).toBeLessThan(2_000)
      expect(b.invalidationLive()).toBe(false)
    } finally {
      await admin.call('ACL', 'SETUSER', 'default', '+subscribe')
      admin.disconnect()
      verifier.close()
    }
    // once the subscription is back (confirmed), the store says so again
    await until(5_000, () => b.invalidationLive())
  })

  it('a subscriber connection that stops answering stops counting as live within about a second', async () => {
    const s = await open('inv5')
    expect(s.invalidationLive()).toBe(true)
    const admin = new Redis(server.url)
    try {
      // every client but the admin's stalls; the sockets stay open (no close event to learn from)
      await admin.call('CLIENT', 'PAUSE', '3000', 'ALL')
      const took = await until(2_500, () => !s.invalidationLive())
      expect(took).toBeLessThan(2_000)
    } finally {
      await admin.call('CLIENT', 'UNPAUSE')
      admin.disconnect()
    }
    await until(3_000, () => s.invalidationLive())
  })
})
