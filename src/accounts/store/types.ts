import type { Page, PageRequest } from '../../store/types.ts'

// Console accounts: people, their sessions and the workspaces they own. Kept apart from the gateway's
// Store (keys, limits, usage) so the hot path never loads it; every method is async so a Redis
// implementation can follow the memory one without changing a caller.

export interface User {
  id: string
  // trimmed and lower-cased: one account per address however it is typed
  email: string
  // PHC string from src/accounts/password.ts; never leaves the store layer except to be verified
  password_hash: string
  created_at: string
}

export interface Session {
  // SHA-256 of the cookie's token: a leaked store does not yield usable cookies
  id: string
  user_id: string
  // synchronizer CSRF token, sent back in X-CSRF-Token on every state-changing request
  csrf_token: string
  created_at: string
  // sliding: moved forward on use, never past created_at + the absolute lifetime
  expires_at: string
  last_seen: string
}

export type Role = 'owner'

export interface Membership {
  user_id: string
  workspace_id: string
  role: Role
  created_at: string
}

export interface CounterWindow {
  count: number
  // epoch ms at which the fixed window ends and the count starts again from zero
  reset_at: number
}

// A growing delay between attempts (exponential backoff), kept per name.
export interface BackoffPolicy {
  // attempts admitted back to back before any delay
  free: number
  // the delay after the attempt that uses the last free one; it doubles with every further attempt
  baseMs: number
  maxMs: number
  // the state is forgotten this long after the delay in force ends with no further attempt
  forgetMs: number
}

export interface BackoffState {
  allowed: boolean
  // attempts admitted so far (this one included when allowed)
  attempts: number
  // epoch ms from which the next attempt is admitted
  next_at: number
}

export interface AccountStore {
  readonly kind: 'memory' | 'redis'
  // for /readyz: the store answers (memory: always)
  ready(): Promise<boolean>
  close(): Promise<void>

  // undefined when the email is already registered (checked and claimed atomically)
  createUser(input: { email: string; password_hash: string }): Promise<User | undefined>
  getUser(id: string): Promise<User | undefined>
  findUserByEmail(email: string): Promise<User | undefined>
  setPasswordHash(userId: string, passwordHash: string): Promise<void>
  // The person, their email (free to sign up again), sessions and memberships; their workspaces are the
  // caller's to delete first (the gateway's store).
  deleteUser(userId: string): Promise<void>

  // With `maxPerPerson`: the person's oldest sessions are ended while they have more than that, so
  // signing in again and again cannot make the store keep sessions without bound
  createSession(session: Session, maxPerPerson?: number): Promise<void>
  // expired sessions are not returned (Redis: PEXPIREAT does it; memory: checked on read)
  getSession(id: string, now: number): Promise<Session | undefined>
  touchSession(id: string, patch: Pick<Session, 'expires_at' | 'last_seen'>): Promise<void>
  deleteSession(id: string): Promise<void>
  // Ends every session of the person (a password change, an account deleted); answers how many there were.
  deleteSessionsOf(userId: string): Promise<number>

  // Adds the membership (a second add of the same one changes nothing). With `maxOwned`, an owner's
  // membership is refused (false) when the person already owns that many workspaces: counted and added
  // atomically (Lua on Redis), so parallel creates cannot all pass one check.
  addMembership(membership: Membership, maxOwned?: number): Promise<boolean>
  // gives a place back: the workspace it was taken for could not be created
  removeMembership(userId: string, workspaceId: string): Promise<void>
  listMemberships(userId: string): Promise<Membership[]>
  getMembership(userId: string, workspaceId: string): Promise<Membership | undefined>
  // A page of a person's memberships, newest first (created_at, then workspace id), from an ordered
  // structure (a sorted set on Redis): the cursor is a workspace id; undefined when it is not one of them.
  pageMemberships(userId: string, page: PageRequest): Promise<Page<Membership> | undefined>

  // Fixed-window counter (Redis: INCR + PEXPIRE NX): adds one and returns the window after the hit.
  hitCounter(name: string, windowMs: number, now: number): Promise<CounterWindow>
  clearCounter(name: string): Promise<void>
  // Admits an attempt only from next_at on; an admitted attempt past the free ones pushes next_at to
  // now + min(baseMs * 2^(attempts - free), maxMs). A refused attempt changes nothing. Atomic.
  takeAttempt(name: string, policy: BackoffPolicy, now: number): Promise<BackoffState>
  clearAttempts(name: string): Promise<void>

  // "Last used" per API key: merged keeping the latest time (ms) per key id.
  recordKeyUse(uses: ReadonlyMap<string, number>): Promise<void>
  keyLastUsed(keyIds: readonly string[]): Promise<Map<string, number>>
  // keys deleted (with their environment, project or workspace): their times go too
  forgetKeyUse(keyIds: readonly string[]): Promise<void>
}
