import type { Cluster, Redis } from 'ioredis'
import { randomBase62 } from '../../lib/ids.ts'
import {
  type ConnectionPolicy,
  createClient,
  DEFAULT_POLICY,
  describeTarget,
  type RedisTarget,
} from '../../store/redis/client.ts'
import { defineCommands } from '../../store/redis/commands.ts'
import { deadline, waitReady } from '../../store/redis/connection.ts'
import { instrumentClient, type RedisObserver } from '../../store/redis/instrument.ts'
import { definePageIds } from '../../store/redis/scripts.ts'
import type { Page, PageRequest } from '../../store/types.ts'
import type {
  AccountStore,
  BackoffPolicy,
  BackoffState,
  CounterWindow,
  Membership,
  Session,
  User,
} from './types.ts'

// [score, member] of a membership in its person's sorted set: newest first is by when it was created
function orderOf(membership: Membership): [number, string] {
  return [Date.parse(membership.created_at) || 0, membership.workspace_id]
}

// Console accounts in Redis, so every gateway serves the same people and sessions. Each key is one
// record and no command spans two keys, so the layout works unchanged on Redis Cluster:
//   console:email:<email> → user id (SET NX claims an address once)
//   console:user:<id> → hash; console:members:<user id> → hash workspace id → JSON membership
//   console:members-bytime:<user id> → sorted set of the same workspace ids by membership time (pages)
//   console:session:<hash> → hash, expiring with the session; console:sessions-of:<user id> → sorted set of
//   a person's session ids by creation (their number is bounded); console:counter:<name> → INCR with PEXPIRE NX
//   console:backoff:<name> → hash attempts/next_at, expiring (backoff.lua decides an attempt atomically)
//   console:last-used → sorted set, key id scored by the latest use (ZADD GT keeps the latest)
export class RedisAccountStore implements AccountStore {
  readonly kind = 'redis' as const
  #client: Redis | Cluster
  #prefix: string
  #clock: () => number
  #timeoutMs: number

  private constructor(client: Redis | Cluster, prefix: string, clock: () => number, timeoutMs: number) {
    this.#client = client
    this.#prefix = `${prefix}:console`
    // this folder's scripts (backoff, memberships) and the store's page of ids
    defineCommands(client, new URL('./', import.meta.url))
    definePageIds(client)
    this.#clock = clock
    this.#timeoutMs = timeoutMs
  }

  // policy: the store's outage policy (REDIS_COMMAND_TIMEOUT_MS); observer: the same Redis metrics
  static async open(options: {
    target: RedisTarget
    prefix?: string
    clock?: () => number
    policy?: Partial<ConnectionPolicy>
    observer?: RedisObserver
  }): Promise<RedisAccountStore> {
    const policy = { ...DEFAULT_POLICY, ...options.policy }
    const client = createClient(options.target, policy)
    if (options.observer) instrumentClient(client, options.observer)
    try {
      client.connect().catch(() => {})
      await waitReady(client, 5_000)
    } catch (err) {
      client.disconnect()
      throw new Error(`Redis ${describeTarget(options.target)} is unreachable: ${(err as Error).message}`)
    }
    return new RedisAccountStore(
      client,
      options.prefix ?? 'anvil',
      options.clock ?? Date.now,
      policy.commandTimeoutMs,
    )
  }

  #key(...parts: string[]): string {
    return [this.#prefix, ...parts].join(':')
  }

  async ready(): Promise<boolean> {
    if (this.#client.status !== 'ready') return false
    try {
      return (await deadline(this.#client.ping(), this.#timeoutMs)) === 'PONG'
    } catch {
      return false
    }
  }

  async close(): Promise<void> {
    await this.#client.quit().catch(() => this.#client.disconnect())
  }

  async createUser(input: { email: string; password_hash: string }): Promise<User | undefined> {
    const user: User = {
      id: `usr_${randomBase62(20)}`,
      email: input.email,
      password_hash: input.password_hash,
      created_at: new Date(this.#clock()).toISOString(),
    }
    const claimed = await this.#client.set(this.#key('email', input.email), user.id, 'NX')
    if (claimed !== 'OK') return undefined
    await this.#client.hset(this.#key('user', user.id), user)
    return user
  }

  async getUser(id: string): Promise<User | undefined> {
    const fields = await this.#client.hgetall(this.#key('user', id))
    return fields.id ? (fields as unknown as User) : undefined
  }

  async findUserByEmail(email: string): Promise<User | undefined> {
    const id = await this.#client.get(this.#key('email', email))
    return id ? this.getUser(id) : undefined
  }

  async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
    const key = this.#key('user', userId)
    if ((await this.#client.exists(key)) === 0) return
    await this.#client.hset(key, 'password_hash', passwordHash)
  }

  // The email last: until then a sign-up with it is still refused, so nobody takes the address of an
  // account that is half deleted.
  async deleteUser(userId: string): Promise<void> {
    const user = await this.getUser(userId)
    if (!user) return
    await this.deleteSessionsOf(userId)
    await Promise.all([
      this.#client.del(this.#key('members', userId)),
      this.#client.del(this.#byTime(userId)),
      this.#client.del(this.#key('user', userId)),
    ])
    await this.#client.del(this.#key('email', user.email))
  }

  // console:sessions-of:<user id> (sorted set by creation time) names a person's sessions: past
  // maxPerPerson the oldest are ended. Two keys, so two steps (no script spans them on a cluster): parallel
  // sign-ins each trim to the bound, so the set ends within it.
  async createSession(session: Session, maxPerPerson?: number): Promise<void> {
    const key = this.#key('session', session.id)
    await this.#client.hset(key, session)
    await this.#expireAt(key, session.expires_at)
    if (maxPerPerson === undefined) return
    const mine = this.#key('sessions-of', session.user_id)
    await this.#client.zadd(mine, Date.parse(session.created_at) || 0, session.id)
    await this.#expireAt(mine, session.expires_at)
    const over = (await this.#client.zcard(mine)) - maxPerPerson
    if (over <= 0) return
    const oldest = await this.#client.zrange(mine, '0', String(over - 1))
    if (oldest.length === 0) return
    // one DEL per session: on a cluster they live in different slots
    await Promise.all(oldest.map((id) => this.#client.del(this.#key('session', id))))
    await this.#client.zrem(mine, ...oldest)
  }

  // Redis drops the record when the session ends; the check against `now` keeps the memory store's
  // semantics for an injected clock.
  async #expireAt(key: string, expiresAt: string): Promise<void> {
    const ms = Date.parse(expiresAt) - Date.now()
    await this.#client.pexpire(key, Math.max(1_000, ms))
  }

  async getSession(id: string, now: number): Promise<Session | undefined> {
    const fields = await this.#client.hgetall(this.#key('session', id))
    if (!fields.id || Date.parse(fields.expires_at!) <= now) return undefined
    return fields as unknown as Session
  }

  async touchSession(id: string, patch: Pick<Session, 'expires_at' | 'last_seen'>): Promise<void> {
    const key = this.#key('session', id)
    if ((await this.#client.exists(key)) === 0) return
    await this.#client.hset(key, patch)
    await this.#expireAt(key, patch.expires_at)
  }

  async deleteSession(id: string): Promise<void> {
    const key = this.#key('session', id)
    const userId = await this.#client.hget(key, 'user_id')
    await this.#client.del(key)
    if (userId !== null) await this.#client.zrem(this.#key('sessions-of', userId), id)
  }

  // every session createSession recorded in the person's sorted set (one DEL each: different slots)
  async deleteSessionsOf(userId: string): Promise<number> {
    const mine = this.#key('sessions-of', userId)
    const ids = await this.#client.zrange(mine, '0', '-1')
    await Promise.all(ids.map((id) => this.#client.del(this.#key('session', id))))
    await this.#client.del(mine)
    return ids.length
  }

  // add-membership.lua counts the person's owned workspaces and adds in one step
  async addMembership(membership: Membership, maxOwned?: number): Promise<boolean> {
    const added = await this.#client.consoleAddMembership(
      this.#key('members', membership.user_id),
      membership.workspace_id,
      JSON.stringify(membership),
      maxOwned ?? -1,
    )
    // the order second: a membership missing from it (a crash in between) is added by the next page read
    if (added === 2) await this.#client.zadd(this.#byTime(membership.user_id), ...orderOf(membership))
    return added !== 0
  }

  async removeMembership(userId: string, workspaceId: string): Promise<void> {
    await this.#client.hdel(this.#key('members', userId), workspaceId)
    await this.#client.zrem(this.#byTime(userId), workspaceId)
  }

  #byTime(userId: string): string {
    return this.#key('members-bytime', userId)
  }

  async getMembership(userId: string, workspaceId: string): Promise<Membership | undefined> {
    const found = await this.#client.hget(this.#key('members', userId), workspaceId)
    return found === null ? undefined : (JSON.parse(found) as Membership)
  }

  // The page's workspace ids from the sorted set (page-ids.lua, pipelined with the migration check), then
  // its memberships in one HMGET. Memberships written by a version without the sorted set are added to it
  // on the first page read.
  async pageMemberships(userId: string, page: PageRequest): Promise<Page<Membership> | undefined> {
    const c = this.#client
    const members = this.#key('members', userId)
    const byTime = this.#byTime(userId)
    const read = () =>
      Promise.all([
        c.hlen(members),
        c.zcard(byTime),
        c.anvilPageIds(byTime, page.startingAfter ?? '', page.limit),
      ])
    const [inHash, inOrder, first] = await read()
    let ids = first
    if (inHash > inOrder) {
      const all = (await c.hvals(members)).map((m) => JSON.parse(m) as Membership)
      await c.zadd(byTime, 'NX', ...all.flatMap(orderOf))
      ids = (await read())[2]
    }
    if (ids === null) return undefined
    const pageIds = ids.slice(0, page.limit)
    const rows = pageIds.length === 0 ? [] : await c.hmget(members, ...pageIds)
    const data = rows.filter((r) => r !== null).map((r) => JSON.parse(r) as Membership)
    return { data, has_more: ids.length > page.limit }
  }

  async listMemberships(userId: string): Promise<Membership[]> {
    const all = await this.#client.hvals(this.#key('members', userId))
    return all.map((m) => JSON.parse(m) as Membership).sort((a, b) => (a.created_at < b.created_at ? -1 : 1))
  }

  async hitCounter(name: string, windowMs: number, now: number): Promise<CounterWindow> {
    const key = this.#key('counter', name)
    const count = await this.#client.incr(key)
    if (count === 1) await this.#client.pexpire(key, windowMs)
    const ttl = await this.#client.pttl(key)
    return { count, reset_at: now + (ttl > 0 ? ttl : windowMs) }
  }

  async clearCounter(name: string): Promise<void> {
    await this.#client.del(this.#key('counter', name))
  }

  async takeAttempt(name: string, policy: BackoffPolicy, now: number): Promise<BackoffState> {
    const [allowed, attempts, next_at] = await this.#client.consoleTakeAttempt(
      this.#key('backoff', name),
      now,
      policy.free,
      policy.baseMs,
      policy.maxMs,
      policy.forgetMs,
    )
    return { allowed: allowed === 1, attempts, next_at }
  }

  async clearAttempts(name: string): Promise<void> {
    await this.#client.del(this.#key('backoff', name))
  }

  async recordKeyUse(uses: ReadonlyMap<string, number>): Promise<void> {
    if (uses.size === 0) return
    const args = [...uses].flatMap(([keyId, at]) => [at, keyId])
    await this.#client.zadd(this.#key('last-used'), 'GT', ...(args as (string | number)[]))
  }

  async keyLastUsed(keyIds: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>()
    if (keyIds.length === 0) return out
    const scores = await this.#client.zmscore(this.#key('last-used'), ...keyIds)
    for (const [i, score] of scores.entries()) if (score !== null) out.set(keyIds[i]!, Number(score))
    return out
  }

  async forgetKeyUse(keyIds: readonly string[]): Promise<void> {
    if (keyIds.length > 0) await this.#client.zrem(this.#key('last-used'), ...keyIds)
  }
}
