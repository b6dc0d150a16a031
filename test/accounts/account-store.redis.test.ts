import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { RedisAccountStore } from '../../src/accounts/store/redis.ts'
import type { Session } from '../../src/accounts/store/types.ts'
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.ts'
import { expectBackoffSemantics } from '../http/console/backoff-contract.ts'
import { expectMembershipPages, expectOwnedCap } from './memberships-contract.ts'
import { expectPeopleChanges } from './people-contract.ts'

function session(id: string, userId: string, expiresAt: number): Session {
  const now = new Date().toISOString()
  return {
    id,
    user_id: userId,
    csrf_token: `csrf-${id}`,
    created_at: now,
    expires_at: new Date(expiresAt).toISOString(),
    last_seen: now,
  }
}

// The same account-store semantics as the memory store, on a real redis-server (shared by all gateways).
describeRedis('Redis account store', () => {
  let redis: RedisServer
  let store: RedisAccountStore
  beforeAll(async () => {
    redis = await startRedis()
    store = await RedisAccountStore.open({ target: { url: redis.url }, prefix: 'test' })
  })
  afterAll(async () => {
    await store?.close()
    await redis?.stop()
  })

  it("changes a password, ends a person's sessions, deletes a person and forgets deleted keys' use", async () => {
    await expectPeopleChanges(store, 'people@example.com', Date.now())
  })

  it('claims an email once, atomically', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        store.createUser({ email: 'race@example.com', password_hash: `h${i}` }),
      ),
    )
    const winners = results.filter((u) => u !== undefined)
    expect(winners).toHaveLength(1)
    expect((await store.findUserByEmail('race@example.com'))?.id).toBe(winners[0]!.id)
    expect(await store.getUser(winners[0]!.id)).toMatchObject({ email: 'race@example.com' })
    expect(await store.findUserByEmail('nobody@example.com')).toBeUndefined()
  })

  it('sessions expire, renew and delete; Redis drops them when they end', async () => {
    const now = Date.now()
    await store.createSession(session('s1', 'u1', now + 1_000))
    expect((await store.getSession('s1', now))?.user_id).toBe('u1')
    expect(await store.getSession('s1', now + 1_000)).toBeUndefined()
    await store.touchSession('s1', { expires_at: new Date(now + 60_000).toISOString(), last_seen: 'later' })
    expect((await store.getSession('s1', now + 30_000))?.last_seen).toBe('later')
    await store.deleteSession('s1')
    expect(await store.getSession('s1', now)).toBeUndefined()
    await store.createSession(session('short', 'u1', Date.now() + 1_000))
    await sleep(1_200)
    expect(await store.getSession('short', 0)).toBeUndefined()
  })

  it('memberships are kept once per workspace', async () => {
    await store.addMembership({
      user_id: 'u2',
      workspace_id: 'ws_1',
      role: 'owner',
      created_at: '2026-01-01',
    })
    await store.addMembership({
      user_id: 'u2',
      workspace_id: 'ws_1',
      role: 'owner',
      created_at: '2026-01-02',
    })
    await store.addMembership({
      user_id: 'u2',
      workspace_id: 'ws_2',
      role: 'owner',
      created_at: '2026-01-03',
    })
    expect((await store.listMemberships('u2')).map((m) => m.workspace_id)).toEqual(['ws_1', 'ws_2'])
  })

  it('caps the workspaces a person owns atomically (add-membership.lua)', async () => {
    await expectOwnedCap(store, 'u-cap')
  })

  it("pages a person's memberships from a sorted set, newest first", async () => {
    const listed = await expectMembershipPages(store, 'u-pages')
    // memberships written before the sorted set existed are added to it by the first page read
    const raw = new Redis(redis.url)
    try {
      await raw.del('test:console:members-bytime:u-pages')
      const page = await store.pageMemberships('u-pages', { limit: 10 })
      expect(page).toEqual({ data: listed, has_more: false })
      expect(await raw.zcard('test:console:members-bytime:u-pages')).toBe(listed.length)
    } finally {
      raw.disconnect()
    }
  })

  it('takes attempts against a growing delay, atomically; Redis forgets a quiet record', async () => {
    await expectBackoffSemantics(store, 'b', Date.UTC(2026, 4, 10, 9))
    const now = Date.now()
    const policy = { free: 1, baseMs: 100, maxMs: 100, forgetMs: 200 }
    expect((await store.takeAttempt('q', policy, now)).attempts).toBe(1)
    await sleep(400)
    expect((await store.takeAttempt('q', policy, Date.now())).attempts).toBe(1)
  })

  it('counts in fixed windows that start again after they end', async () => {
    const now = Date.now()
    expect((await store.hitCounter('c', 300, now)).count).toBe(1)
    const second = await store.hitCounter('c', 300, now)
    expect(second.count).toBe(2)
    expect(second.reset_at).toBeGreaterThan(now)
    expect(second.reset_at).toBeLessThanOrEqual(now + 300)
    await sleep(400)
    expect((await store.hitCounter('c', 300, Date.now())).count).toBe(1)
    await store.clearCounter('c')
    expect((await store.hitCounter('c', 300, Date.now())).count).toBe(1)
  })

  it('keeps the latest "last used" time per key', async () => {
    await store.recordKeyUse(new Map([['k1', 200]]))
    await store.recordKeyUse(
      new Map([
        ['k1', 100],
        ['k2', 300],
      ]),
    )
    expect(await store.keyLastUsed(['k1', 'k2', 'k3'])).toEqual(
      new Map([
        ['k1', 200],
        ['k2', 300],
      ]),
    )
  })
})
