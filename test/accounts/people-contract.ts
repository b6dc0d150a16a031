import { expect } from 'vitest'
import type { AccountStore, Session } from '../../src/accounts/store/types.ts'

// Both account stores change a password, end a person's sessions and delete a person the same way.
export async function expectPeopleChanges(store: AccountStore, email: string, now: number): Promise<void> {
  const session = (id: string, userId: string): Session => ({
    id,
    user_id: userId,
    csrf_token: `csrf-${id}`,
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + 3_600_000).toISOString(),
    last_seen: new Date(now).toISOString(),
  })
  const user = (await store.createUser({ email, password_hash: 'old' }))!
  const other = (await store.createUser({ email: `other-${email}`, password_hash: 'x' }))!
  await store.setPasswordHash(user.id, 'new')
  expect((await store.getUser(user.id))?.password_hash).toBe('new')
  expect((await store.findUserByEmail(email))?.password_hash).toBe('new')
  // a person who does not exist is not created by it
  await store.setPasswordHash('usr_missing', 'x')
  expect(await store.getUser('usr_missing')).toBeUndefined()

  for (const id of [`${email}-a`, `${email}-b`]) await store.createSession(session(id, user.id), 20)
  await store.createSession(session(`${email}-o`, other.id), 20)
  expect(await store.deleteSessionsOf(user.id)).toBe(2)
  for (const id of [`${email}-a`, `${email}-b`]) expect(await store.getSession(id, now)).toBeUndefined()
  expect(await store.getSession(`${email}-o`, now)).toBeDefined()
  expect(await store.deleteSessionsOf(user.id)).toBe(0)

  await store.createSession(session(`${email}-c`, user.id), 20)
  const membership = { user_id: user.id, workspace_id: 'ws_gone', role: 'owner' as const, created_at: 'x' }
  await store.addMembership(membership)
  await store.addMembership({ ...membership, user_id: other.id })
  await store.deleteUser(user.id)
  expect(await store.getUser(user.id)).toBeUndefined()
  expect(await store.findUserByEmail(email)).toBeUndefined()
  expect(await store.getSession(`${email}-c`, now)).toBeUndefined()
  expect(await store.listMemberships(user.id)).toEqual([])
  expect(await store.pageMemberships(user.id, { limit: 10 })).toEqual({ data: [], has_more: false })
  // the other person keeps their session and membership; the email can sign up again
  expect(await store.getSession(`${email}-o`, now)).toBeDefined()
  expect(await store.listMemberships(other.id)).toHaveLength(1)
  expect((await store.createUser({ email, password_hash: 'again' }))?.id).not.toBe(user.id)

  await store.recordKeyUse(
    new Map([
      ['key_a', 1],
      ['key_b', 2],
    ]),
  )
  await store.forgetKeyUse(['key_a', 'key_missing'])
  expect([...(await store.keyLastUsed(['key_a', 'key_b']))]).toEqual([['key_b', 2]])
}
