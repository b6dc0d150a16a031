import { expect } from 'vitest'
import type { AccountStore, Membership } from '../../src/accounts/store/types.ts'

// Both account stores page a person's memberships the same way: newest first by created_at, ties by
// workspace id (descending), from an ordered structure; an unknown cursor is undefined.
export async function expectMembershipPages(store: AccountStore, userId: string): Promise<Membership[]> {
  const at = (day: number) => new Date(Date.UTC(2026, 0, day)).toISOString()
  const made: Membership[] = [
    { user_id: userId, workspace_id: 'ws_b', role: 'owner', created_at: at(1) },
    { user_id: userId, workspace_id: 'ws_a', role: 'owner', created_at: at(2) },
    { user_id: userId, workspace_id: 'ws_c', role: 'owner', created_at: at(2) },
    { user_id: userId, workspace_id: 'ws_d', role: 'owner', created_at: at(3) },
    { user_id: userId, workspace_id: 'ws_e', role: 'owner', created_at: at(4) },
  ]
  // out of order, and one twice: kept once, with its first date
  for (const m of [made[3]!, made[0]!, made[2]!, made[1]!, made[4]!]) await store.addMembership(m)
  await store.addMembership({ ...made[0]!, created_at: at(9) })
  const expected = ['ws_e', 'ws_d', 'ws_c', 'ws_a', 'ws_b']
  const seen: Membership[] = []
  let after: string | undefined
  for (;;) {
    const page = await store.pageMemberships(userId, { limit: 2, startingAfter: after })
    expect(page).toBeDefined()
    seen.push(...page!.data)
    if (!page!.has_more) break
    expect(page!.data).toHaveLength(2)
    after = page!.data.at(-1)!.workspace_id
  }
  expect(seen.map((m) => m.workspace_id)).toEqual(expected)
  expect(seen.find((m) => m.workspace_id === 'ws_b')).toEqual(made[0])
  expect(await store.pageMemberships(userId, { limit: 2, startingAfter: 'ws_nope' })).toBeUndefined()
  expect(await store.pageMemberships('usr_nobody', { limit: 2 })).toEqual({ data: [], has_more: false })
  expect(await store.getMembership(userId, 'ws_c')).toEqual(made[2])
  expect(await store.getMembership(userId, 'ws_nope')).toBeUndefined()
  expect(await store.getMembership('usr_nobody', 'ws_c')).toBeUndefined()
  return seen
}

// Both account stores cap a person's owned workspaces atomically: a burst of parallel adds under a cap
// gets exactly the places left; a refusal changes nothing; a removed membership frees its place.
export async function expectOwnedCap(store: AccountStore, userId: string): Promise<void> {
  const at = new Date(Date.UTC(2026, 0, 1)).toISOString()
  const membership = (i: number): Membership => ({
    user_id: userId,
    workspace_id: `ws_cap${i}`,
    role: 'owner',
    created_at: at,
  })
  const added = await Promise.all(Array.from({ length: 12 }, (_, i) => store.addMembership(membership(i), 5)))
  expect(added.filter(Boolean)).toHaveLength(5)
  expect(await store.listMemberships(userId)).toHaveLength(5)
  const mine = (await store.listMemberships(userId)).map((m) => m.workspace_id)
  // adding one already there is not a new place
  expect(await store.addMembership(membership(Number(mine[0]!.slice(6))), 5)).toBe(true)
  expect(await store.addMembership(membership(99), 5)).toBe(false)
  await store.removeMembership(userId, mine[0]!)
  expect((await store.pageMemberships(userId, { limit: 10 }))!.data).toHaveLength(4)
  expect(await store.getMembership(userId, mine[0]!)).toBeUndefined()
  expect(await store.addMembership(membership(99), 5)).toBe(true)
  expect(await store.listMemberships(userId)).toHaveLength(5)
}
