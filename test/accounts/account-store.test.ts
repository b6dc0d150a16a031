import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ACCOUNTS_FILE, MemoryAccountStore } from '../../src/accounts/store/memory.ts'
import type { Session } from '../../src/accounts/store/types.ts'
import { expectBackoffSemantics } from '../http/console/backoff-contract.ts'
import { expectMembershipPages, expectOwnedCap } from './memberships-contract.ts'
import { expectPeopleChanges } from './people-contract.ts'

const T0 = Date.UTC(2026, 2, 1, 12)

function session(id: string, userId: string, expiresAt: number): Session {
  return {
    id,
    user_id: userId,
    csrf_token: `csrf-${id}`,
    created_at: new Date(T0).toISOString(),
    expires_at: new Date(expiresAt).toISOString(),
    last_seen: new Date(T0).toISOString(),
  }
}

describe('memory account store', () => {
  let dir: string | undefined
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
    dir = undefined
  })

  it('caps the workspaces a person owns atomically (CONSOLE_MAX_WORKSPACES)', async () => {
    const store = await MemoryAccountStore.open({ dataDir: null, clock: () => T0 })
    await expectOwnedCap(store, 'usr_cap')
    await store.close()
  })

  it("pages a person's memberships newest first, and keeps the order across a restart", async () => {
    dir = await mkdtemp(join(tmpdir(), 'anvil-accounts-'))
    const first = await MemoryAccountStore.open({ dataDir: dir, clock: () => T0 })
    const listed = await expectMembershipPages(first, 'usr_pages')
    await first.close()
    const second = await MemoryAccountStore.open({ dataDir: dir, clock: () => T0 })
    expect(await second.pageMemberships('usr_pages', { limit: 10 })).toEqual({
      data: listed,
      has_more: false,
    })
    await second.close()
  })

  it("changes a password, ends a person's sessions, deletes a person and forgets deleted keys' use", async () => {
    const store = await MemoryAccountStore.open({ dataDir: null, clock: () => T0 })
    await expectPeopleChanges(store, 'people@example.com', T0)
    await store.close()
  })

  it('claims an email once', async () => {
    const store = await MemoryAccountStore.open({ dataDir: null, clock: () => T0 })
    const a = await store.createUser({ email: 'a@example.com', password_hash: 'h1' })
    expect(a?.id).toMatch(/^usr_[0-9A-Za-z]{20}$/)
    expect(await store.createUser({ email: 'a@example.com', password_hash: 'h2' })).toBeUndefined()
    expect((await store.findUserByEmail('a@example.com'))?.password_hash).toBe('h1')
    expect(await store.findUserByEmail('b@example.com')).toBeUndefined()
    await store.close()
  })

  it('does not return expired sessions, and deletes on request', async () => {
    const store = await MemoryAccountStore.open({ dataDir: null, clock: () => T0 })
    await store.createSession(session('s1', 'u1', T0 + 1000))
    expect((await store.getSession('s1', T0))?.user_id).toBe('u1')
    expect(await store.getSession('s1', T0 + 1000)).toBeUndefined()
    await store.createSession(session('s2', 'u1', T0 + 1000))
    await store.deleteSession('s2')
    expect(await store.getSession('s2', T0)).toBeUndefined()
    await store.close()
  })

  it('takes attempts against a growing delay, forgotten after a quiet spell', async () => {
    const store = await MemoryAccountStore.open({ dataDir: null, clock: () => T0 })
    await expectBackoffSemantics(store, 'b', T0)
    const policy = { free: 1, baseMs: 1_000, maxMs: 1_000, forgetMs: 5_000 }
    expect((await store.takeAttempt('q', policy, T0)).next_at).toBe(T0 + 1_000)
    expect((await store.takeAttempt('q', policy, T0 + 1_000)).attempts).toBe(2)
    // quiet for forgetMs after the delay ended: a fresh start
    expect(await store.takeAttempt('q', policy, T0 + 2_000 + 5_000)).toMatchObject({ attempts: 1 })
    await store.close()
  })

  it('counts in fixed windows that start again after they end', async () => {
    const store = await MemoryAccountStore.open({ dataDir: null, clock: () => T0 })
    expect(await store.hitCounter('c', 1000, T0)).toEqual({ count: 1, reset_at: T0 + 1000 })
    expect(await store.hitCounter('c', 1000, T0 + 999)).toEqual({ count: 2, reset_at: T0 + 1000 })
    expect(await store.hitCounter('c', 1000, T0 + 1000)).toEqual({ count: 1, reset_at: T0 + 2000 })
    await store.clearCounter('c')
    expect((await store.hitCounter('c', 1000, T0 + 1001)).count).toBe(1)
    await store.close()
  })

  it('keeps the latest "last used" time per key', async () => {
    const store = await MemoryAccountStore.open({ dataDir: null, clock: () => T0 })
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
    await store.close()
  })

  it('persists people, sessions, memberships and key use to DATA_DIR/accounts.json (mode 0600)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'anvil-accounts-'))
    let now = T0
    const first = await MemoryAccountStore.open({ dataDir: dir, clock: () => now })
    const user = (await first.createUser({ email: 'a@example.com', password_hash: '$scrypt$x' }))!
    await first.createSession(session('live', user.id, T0 + 60_000))
    await first.createSession(session('old', user.id, T0 + 1_000))
    await first.addMembership({ user_id: user.id, workspace_id: 'ws_1', role: 'owner', created_at: 'x' })
    await first.addMembership({ user_id: user.id, workspace_id: 'ws_1', role: 'owner', created_at: 'x' })
    await first.recordKeyUse(new Map([['key_1', T0]]))
    await first.touchSession('live', { expires_at: new Date(T0 + 120_000).toISOString(), last_seen: 'y' })
    now = T0 + 2_000
    await first.close()
    expect((await stat(join(dir, ACCOUNTS_FILE))).mode & 0o777).toBe(0o600)
    expect(await readFile(join(dir, ACCOUNTS_FILE), 'utf8')).not.toContain('"old"')

    const second = await MemoryAccountStore.open({ dataDir: dir, clock: () => now })
    expect((await second.findUserByEmail('a@example.com'))?.id).toBe(user.id)
    expect((await second.getSession('live', now))?.expires_at).toBe(new Date(T0 + 120_000).toISOString())
    expect(await second.listMemberships(user.id)).toHaveLength(1)
    expect((await second.keyLastUsed(['key_1'])).get('key_1')).toBe(T0)
    expect(await second.createUser({ email: 'a@example.com', password_hash: 'h' })).toBeUndefined()
    await second.close()
  })
})
