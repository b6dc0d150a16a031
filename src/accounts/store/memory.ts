import { join } from 'node:path'
import { readJsonIfExists, SnapshotWriter } from '../../lib/atomic-file.ts'
import { randomBase62 } from '../../lib/ids.ts'
import { OrderedIds } from '../../store/ordered-ids.ts'
import type { Page, PageRequest } from '../../store/types.ts'
import { nextAttemptAt } from './backoff.ts'
import type {
  AccountStore,
  BackoffPolicy,
  BackoffState,
  CounterWindow,
  Membership,
  Session,
  User,
} from './types.ts'

interface Snapshot {
  version: 1
  users: User[]
  sessions: Session[]
  memberships: Membership[]
  key_last_used: [string, number][]
}

export interface MemoryAccountStoreOptions {
  // null: nothing is written (tests)
  dataDir: string | null
  clock?: () => number
  flushMs?: number
}

export const ACCOUNTS_FILE = 'accounts.json'

// The embedded account store: state in memory, written to DATA_DIR/accounts.json (mode 0600, atomic).
// Records people create are written before the call returns; session renewals and key "last used"
// times, which change on every use, are flushed every few seconds and at close. Sign-in attempt
// counters are deliberately not persisted: a restart forgetting them costs at most one window.
export class MemoryAccountStore implements AccountStore {
  readonly kind = 'memory' as const
  #users = new Map<string, User>()
  #userIdByEmail = new Map<string, string>()
  #sessions = new Map<string, Session>()
  // user id → ids of their sessions, oldest first (Set order)
  #sessionsOf = new Map<string, Set<string>>()
  // user id → workspace id → membership
  #memberships = new Map<string, Map<string, Membership>>()
  #membershipOrder = new Map<string, OrderedIds>()
  #counters = new Map<string, CounterWindow>()
  #backoffs = new Map<string, { attempts: number; next_at: number; forget_at: number }>()
  #keyLastUsed = new Map<string, number>()
  #clock: () => number
  #writer: SnapshotWriter | null
  #dirty = false
  #timer: NodeJS.Timeout | undefined

  private constructor(options: MemoryAccountStoreOptions) {
    this.#clock = options.clock ?? Date.now
    this.#writer = options.dataDir
      ? new SnapshotWriter(join(options.dataDir, ACCOUNTS_FILE), () => JSON.stringify(this.#snapshot()))
      : null
  }

  static async open(options: MemoryAccountStoreOptions): Promise<MemoryAccountStore> {
    const store = new MemoryAccountStore(options)
    if (options.dataDir) {
      const snap = await readJsonIfExists<Snapshot>(
        join(options.dataDir, ACCOUNTS_FILE),
        'Restore it from a backup; deleted, the console starts with no accounts and no sessions.',
      )
      if (snap) store.#load(snap)
    }
    store.#timer = setInterval(() => void store.#sweep(), options.flushMs ?? 5_000)
    store.#timer.unref()
    return store
  }

  #load(snap: Snapshot): void {
    for (const u of snap.users) {
      this.#users.set(u.id, u)
      this.#userIdByEmail.set(u.email, u.id)
    }
    for (const s of [...snap.sessions].sort((a, b) => (a.created_at < b.created_at ? -1 : 1)))
      this.#keepSession(s)
    for (const m of snap.memberships) this.#keepMembership(m)
    for (const [id, at] of snap.key_last_used ?? []) this.#keyLastUsed.set(id, at)
  }

  #snapshot(): Snapshot {
    const now = this.#clock()
    return {
      version: 1,
      users: [...this.#users.values()],
      sessions: [...this.#sessions.values()].filter((s) => Date.parse(s.expires_at) > now),
      memberships: [...this.#memberships.values()].flatMap((byWorkspace) => [...byWorkspace.values()]),
      key_last_used: [...this.#keyLastUsed],
    }
  }

  async #persist(): Promise<void> {
    this.#dirty = false
    await this.#writer?.write()
  }

  // Drops what has expired, then writes what changed since the last write.
  async #sweep(): Promise<void> {
    const now = this.#clock()
    for (const [name, window] of this.#counters) if (window.reset_at <= now) this.#counters.delete(name)
    for (const [name, b] of this.#backoffs) if (b.forget_at <= now) this.#backoffs.delete(name)
    for (const [id, s] of this.#sessions) {
      if (Date.parse(s.expires_at) <= now) {
        this.#dropSession(id)
        this.#dirty = true
      }
    }
    if (this.#dirty) await this.#persist().catch(() => {})
  }

  #keepMembership(membership: Membership): void {
    let byWorkspace = this.#memberships.get(membership.user_id)
    let order = this.#membershipOrder.get(membership.user_id)
    if (!byWorkspace || !order) {
      byWorkspace = new Map()
      order = new OrderedIds()
      this.#memberships.set(membership.user_id, byWorkspace)
      this.#membershipOrder.set(membership.user_id, order)
    }
    byWorkspace.set(membership.workspace_id, membership)
    order.add({ created_at: membership.created_at, id: membership.workspace_id })
  }

  async ready(): Promise<boolean> {
    return true
  }

  async close(): Promise<void> {
    clearInterval(this.#timer)
    if (this.#dirty) await this.#persist()
  }

  async createUser(input: { email: string; password_hash: string }): Promise<User | undefined> {
    if (this.#userIdByEmail.has(input.email)) return undefined
    const user: User = {
      id: `usr_${randomBase62(20)}`,
      email: input.email,
      password_hash: input.password_hash,
      created_at: new Date(this.#clock()).toISOString(),
    }
    this.#users.set(user.id, user)
    this.#userIdByEmail.set(user.email, user.id)
    await this.#persist()
    return { ...user }
  }

  async getUser(id: string): Promise<User | undefined> {
    const user = this.#users.get(id)
    return user && { ...user }
  }

  async findUserByEmail(email: string): Promise<User | undefined> {
    const id = this.#userIdByEmail.get(email)
    return id === undefined ? undefined : this.getUser(id)
  }

  async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
    const user = this.#users.get(userId)
    if (!user) return
    user.password_hash = passwordHash
    await this.#persist()
  }

  async deleteUser(userId: string): Promise<void> {
    const user = this.#users.get(userId)
    if (!user) return
    this.#users.delete(userId)
    this.#userIdByEmail.delete(user.email)
    for (const id of [...(this.#sessionsOf.get(userId) ?? [])]) this.#dropSession(id)
    this.#memberships.delete(userId)
    this.#membershipOrder.delete(userId)
    await this.#persist()
  }

  #keepSession(session: Session): void {
    this.#sessions.set(session.id, session)
    let mine = this.#sessionsOf.get(session.user_id)
    if (!mine) {
      mine = new Set()
      this.#sessionsOf.set(session.user_id, mine)
    }
    mine.add(session.id)
  }

  #dropSession(id: string): boolean {
    const session = this.#sessions.get(id)
    if (!session) return false
    this.#sessions.delete(id)
    const mine = this.#sessionsOf.get(session.user_id)
    mine?.delete(id)
    if (mine?.size === 0) this.#sessionsOf.delete(session.user_id)
    return true
  }

  async createSession(session: Session, maxPerPerson?: number): Promise<void> {
    this.#keepSession({ ...session })
    const mine = this.#sessionsOf.get(session.user_id)!
    if (maxPerPerson !== undefined)
      for (const oldest of mine) {
        if (mine.size <= maxPerPerson) break
        this.#dropSession(oldest)
      }
    await this.#persist()
  }

  async getSession(id: string, now: number): Promise<Session | undefined> {
    const session = this.#sessions.get(id)
    if (!session || Date.parse(session.expires_at) <= now) return undefined
    return { ...session }
  }

  async touchSession(id: string, patch: Pick<Session, 'expires_at' | 'last_seen'>): Promise<void> {
    const session = this.#sessions.get(id)
    if (!session) return
    session.expires_at = patch.expires_at
    session.last_seen = patch.last_seen
    this.#dirty = true
  }

  async deleteSession(id: string): Promise<void> {
    if (this.#dropSession(id)) await this.#persist()
  }

  async deleteSessionsOf(userId: string): Promise<number> {
    const mine = [...(this.#sessionsOf.get(userId) ?? [])]
    for (const id of mine) this.#dropSession(id)
    if (mine.length > 0) await this.#persist()
    return mine.length
  }

  // checked and added before the first await: one event-loop turn is this store's atomic step
  async addMembership(membership: Membership, maxOwned?: number): Promise<boolean> {
    const mine = this.#memberships.get(membership.user_id)
    if (mine?.has(membership.workspace_id)) return true
    if (maxOwned !== undefined && membership.role === 'owner') {
      let owned = 0
      for (const m of mine?.values() ?? []) if (m.role === 'owner') owned++
      if (owned >= maxOwned) return false
    }
    this.#keepMembership({ ...membership })
    await this.#persist()
    return true
  }

  async removeMembership(userId: string, workspaceId: string): Promise<void> {
    if (!this.#memberships.get(userId)?.delete(workspaceId)) return
    this.#membershipOrder.get(userId)?.delete(new Set([workspaceId]))
    await this.#persist()
  }

  async listMemberships(userId: string): Promise<Membership[]> {
    return [...(this.#memberships.get(userId)?.values() ?? [])].map((m) => ({ ...m }))
  }

  async getMembership(userId: string, workspaceId: string): Promise<Membership | undefined> {
    const found = this.#memberships.get(userId)?.get(workspaceId)
    return found && { ...found }
  }

  async pageMemberships(userId: string, page: PageRequest): Promise<Page<Membership> | undefined> {
    const ids = (this.#membershipOrder.get(userId) ?? new OrderedIds()).page(page)
    if (!ids) return undefined
    const mine = this.#memberships.get(userId)!
    const data = ids.data.map((id) => ({ ...mine.get(id)! }))
    return { data, has_more: ids.has_more }
  }

  async hitCounter(name: string, windowMs: number, now: number): Promise<CounterWindow> {
    let window = this.#counters.get(name)
    if (!window || window.reset_at <= now) {
      window = { count: 0, reset_at: now + windowMs }
      this.#counters.set(name, window)
    }
    window.count++
    return { ...window }
  }

  async clearCounter(name: string): Promise<void> {
    this.#counters.delete(name)
  }

  async takeAttempt(name: string, policy: BackoffPolicy, now: number): Promise<BackoffState> {
    let b = this.#backoffs.get(name)
    if (b && b.forget_at <= now) b = undefined
    if (b && now < b.next_at) return { allowed: false, attempts: b.attempts, next_at: b.next_at }
    const attempts = (b?.attempts ?? 0) + 1
    const next_at = nextAttemptAt(policy, attempts, now)
    this.#backoffs.set(name, { attempts, next_at, forget_at: next_at + policy.forgetMs })
    return { allowed: true, attempts, next_at }
  }

  async clearAttempts(name: string): Promise<void> {
    this.#backoffs.delete(name)
  }

  async recordKeyUse(uses: ReadonlyMap<string, number>): Promise<void> {
    for (const [id, at] of uses) {
      if (at > (this.#keyLastUsed.get(id) ?? 0)) {
        this.#keyLastUsed.set(id, at)
        this.#dirty = true
      }
    }
  }

  async keyLastUsed(keyIds: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>()
    for (const id of keyIds) {
      const at = this.#keyLastUsed.get(id)
      if (at !== undefined) out.set(id, at)
    }
    return out
  }

  async forgetKeyUse(keyIds: readonly string[]): Promise<void> {
    for (const id of keyIds) if (this.#keyLastUsed.delete(id)) this.#dirty = true
  }
}
