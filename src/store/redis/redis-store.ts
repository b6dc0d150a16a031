import type { Cluster, Redis } from 'ioredis'
import { AppError } from '../../errors.ts'
import { randomBase62 } from '../../lib/ids.ts'
import { monthInfo, monthOf } from '../../limits/month.ts'
import type { PlanName, PlanOverrides } from '../../limits/plans.ts'
import { capExceeded } from '../../limits/tenant-caps.ts'
import type { EndpointBatch, EndpointCounts } from '../endpoint-usage.ts'
import { newId } from '../ids.ts'
import type {
  ApiKeyRecord,
  Charge,
  ConsumeRequest,
  DeleteOutcome,
  Environment,
  IdempotencyRecord,
  IdempotencyRef,
  KeyLookup,
  KeyMode,
  LimitDecision,
  NewKey,
  NewWorkspace,
  Page,
  PageRequest,
  Project,
  Store,
  StoreEvent,
  Usage,
  Workspace,
} from '../types.ts'
import {
  type ConnectionPolicy,
  createClient,
  DEFAULT_POLICY,
  describeTarget,
  type RedisTarget,
} from './client.ts'
import { deadline, type StoreLog, waitReady, watchConnection } from './connection.ts'
import { ConsumeBatcher } from './consume-batch.ts'
import { defineIdempotency, RedisIdempotency } from './idempotency.ts'
import { instrumentClient, type RedisObserver } from './instrument.ts'
import { Invalidation } from './invalidation.ts'
import { RedisKeys } from './keys.ts'
import { candidateMonths } from './limit-reply.ts'
import {
  decodeKey,
  decodeWorkspace,
  encodeFields,
  encodeKey,
  encodeOverrides,
  encodeWorkspace,
  fieldsOf,
} from './records.ts'
import { defineScripts } from './scripts.ts'
import { decodeEndpointUsage, decodeUsage, encodeEndpointCounts } from './usage.ts'

export type { StoreLog } from './connection.ts'

export interface RedisStoreOptions {
  target: RedisTarget
  // namespace of every key and of the invalidation channel (several deployments may share a Redis)
  prefix?: string
  // tests only: the limiter's clock (instead of Redis TIME) and record timestamps
  clock?: () => number
  policy?: Partial<ConnectionPolicy>
  // how long open() waits for Redis before failing the boot
  connectWaitMs?: number
  log?: StoreLog
  // told every command's latency and failures (metrics)
  observer?: RedisObserver
}

// the field of a workspace's rotation index that says it holds every rotation (RedisKeys.keyRotations)
const ROTATIONS_COMPLETE = '*'

// tries of a capped create that lost a race with another create in the same workspace
const CAS_ATTEMPTS = 10

const DAY_MS = 86_400_000
// usage and endpoint counts are kept this long past their month's end (consume.lua sets the same)
const USAGE_KEPT_MS = 400 * DAY_MS

function contended(): AppError {
  return new AppError('ERR_UNAVAILABLE', 'Too many changes at once in this workspace; retry.', undefined, {
    'retry-after': '1',
  })
}

const byCreation = <T extends { created_at: string; id: string }>(a: T, b: T) =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0

// The shared store for N gateways: durable records are Redis hashes, limit decisions are batched into one
// Lua script call per event-loop turn and cluster slot (consume.lua, consume-batch.ts), and every key a
// script touches carries the workspace's hash tag.
// The months whose usage a workspace created at `createdMs` may still have kept at `now`.
function keptMonths(createdMs: number, now: number): string[] {
  const months: string[] = []
  const from = Math.max(createdMs, now - USAGE_KEPT_MS - 31 * DAY_MS)
  for (let at = monthInfo(now).start; at >= monthInfo(from).start; at = monthInfo(at - 1).start)
    months.push(monthOf(at))
  return months
}

export class RedisStore implements Store {
  readonly kind = 'redis' as const
  #client: Redis | Cluster
  #k: RedisKeys
  #idempotency: RedisIdempotency
  #clock: (() => number) | undefined
  #invalidation: Invalidation
  #timeoutMs: number
  #batcher: ConsumeBatcher

  private constructor(
    client: Redis | Cluster,
    keys: RedisKeys,
    invalidation: Invalidation,
    timeoutMs: number,
    clock?: () => number,
  ) {
    this.#client = client
    this.#k = keys
    this.#idempotency = new RedisIdempotency(client, keys.prefix, clock)
    this.#invalidation = invalidation
    this.#timeoutMs = timeoutMs
    this.#clock = clock
    this.#batcher = new ConsumeBatcher(
      keys,
      (args) => deadline(client.anvilConsumeBuffer(...args), timeoutMs),
      client.isCluster,
    )
  }

  static async open(options: RedisStoreOptions): Promise<RedisStore> {
    const policy = { ...DEFAULT_POLICY, ...options.policy }
    const keys = new RedisKeys(options.prefix ?? 'anvil')
    const client = createClient(options.target, policy)
    defineScripts(client)
    defineIdempotency(client)
    if (options.observer) instrumentClient(client, options.observer)
    watchConnection(client, options.target, options.log)
    const seeds = 'clusterNodes' in options.target ? options.target.clusterNodes : []
    const invalidation = new Invalidation({
      target: options.target,
      policy,
      channel: keys.channel,
      origin: randomBase62(16),
      nodes: () => {
        const masters = 'nodes' in client ? client.nodes('master').map((n) => n.options) : []
        return masters.length > 0 ? masters.map((o) => ({ host: o.host!, port: o.port! })) : seeds
      },
    })
    const waitMs = options.connectWaitMs ?? 5_000
    try {
      client.connect().catch(() => {})
      await waitReady(client, waitMs)
      await invalidation.start(waitMs)
    } catch (err) {
      invalidation.close()
      client.disconnect()
      throw new Error(`Redis ${describeTarget(options.target)} is unreachable: ${(err as Error).message}`)
    }
    return new RedisStore(client, keys, invalidation, policy.commandTimeoutMs, options.clock)
  }

  #now(): string {
    return new Date(this.#clock ? this.#clock() : Date.now()).toISOString()
  }

  async ready(): Promise<boolean> {
    if (this.#client.status !== 'ready' || !this.#invalidation.subscribed) return false
    try {
      return (await deadline(this.#client.ping(), this.#timeoutMs)) === 'PONG'
    } catch {
      return false
    }
  }

  async close(): Promise<void> {
    this.#invalidation.close()
    await this.#client.quit().catch(() => {})
    this.#client.disconnect()
  }

  invalidationLive(): boolean {
    return this.#invalidation.live
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    return this.#invalidation.listen(listener)
  }

  async createWorkspace(input: NewWorkspace): Promise<Workspace> {
    const ws: Workspace = {
      id: input.id ?? newId('ws'),
      name: input.name,
      plan: input.plan,
      overrides: {},
      created_at: input.created_at ?? this.#now(),
    }
    await this.#client.hset(this.#k.workspace(ws.id), ...encodeWorkspace(ws))
    await Promise.all([
      this.#client.sadd(this.#k.workspaceIds(), ws.id),
      this.#client.zadd(this.#k.workspacesByTime(), Date.parse(ws.created_at), ws.id),
      // no rotation yet: the rotation index is complete from the start
      this.#client.hset(this.#k.keyRotations(ws.id), ROTATIONS_COMPLETE, '1'),
    ])
    return ws
  }

  async getWorkspace(id: string): Promise<Workspace | undefined> {
    return decodeWorkspace(fieldsOf(await this.#client.hgetall(this.#k.workspace(id))))
  }

  async updateWorkspace(
    id: string,
    patch: { name?: string; plan?: PlanName; overrides?: PlanOverrides },
  ): Promise<Workspace | undefined> {
    const fields = [
      ...encodeFields({ name: patch.name, plan: patch.plan }),
      ...encodeOverrides(patch.overrides ?? {}),
    ]
    return this.#patch(this.#k.workspace(id), 'workspace', fields, decodeWorkspace, (w) => ({
      type: 'workspace',
      id: w.id,
    }))
  }

  async listWorkspaces(): Promise<Workspace[]> {
    const ids = await this.#client.smembers(this.#k.workspaceIds())
    const all = await Promise.all(ids.map((id) => this.getWorkspace(id)))
    return all.filter((w) => w !== undefined).sort(byCreation)
  }

  async claimBootstrap(): Promise<boolean> {
    return (await this.#client.set(this.#k.bootstrap(), this.#now(), 'NX')) === 'OK'
  }

  async ensureProject(workspaceId: string, name: string, max?: number): Promise<Project> {
    const hash = this.#k.projects(workspaceId)
    const existing = await this.#client.hget(hash, name)
    if (existing) return JSON.parse(existing) as Project
    const proposed: Project = { id: newId('prj'), workspace_id: workspaceId, name, created_at: this.#now() }
    // the index goes first, so whoever sees the project can also find its workspace
    await this.#client.set(this.#k.projectWorkspace(proposed.id), workspaceId)
    const reply = await this.#client.anvilEnsureField(hash, name, JSON.stringify(proposed), max ?? -1)
    if (reply === '') {
      await this.#client.del(this.#k.projectWorkspace(proposed.id))
      throw capExceeded('max_projects', max!)
    }
    const stored = JSON.parse(reply) as Project
    if (stored.id !== proposed.id) await this.#client.del(this.#k.projectWorkspace(proposed.id))
    return stored
  }

  async ensureEnvironment(
    projectId: string,
    name: string,
    mode: KeyMode,
    max?: number,
  ): Promise<Environment> {
    const workspaceId = await this.#client.get(this.#k.projectWorkspace(projectId))
    if (!workspaceId) throw new Error(`unknown project ${projectId}`)
    const hash = this.#k.environments(workspaceId, projectId)
    const existing = await this.#client.hget(hash, name)
    if (existing) return JSON.parse(existing) as Environment
    const proposed: Environment = {
      id: newId('env'),
      workspace_id: workspaceId,
      project_id: projectId,
      name,
      mode,
      created_at: this.#now(),
    }
    const value = JSON.stringify(proposed)
    // the script checks it was handed every project; a project created meanwhile means list and retry
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const projectIds = max === undefined ? [] : (await this.listProjects(workspaceId)).map((p) => p.id)
      const envHashes = projectIds.map((id) => this.#k.environments(workspaceId, id))
      const keys = [this.#k.projects(workspaceId), hash, ...envHashes]
      const reply = await this.#client.anvilEnsureEnvironment(keys.length, ...keys, name, value, max ?? -1)
      if (reply === '') throw capExceeded('max_environments', max!)
      if (reply !== null) return JSON.parse(reply) as Environment
    }
    throw contended()
  }

  async listProjects(workspaceId: string): Promise<Project[]> {
    const values = await this.#client.hvals(this.#k.projects(workspaceId))
    return values.map((v) => JSON.parse(v) as Project).sort(byCreation)
  }

  async listEnvironments(projectId: string): Promise<Environment[]> {
    const workspaceId = await this.#client.get(this.#k.projectWorkspace(projectId))
    if (!workspaceId) return []
    const values = await this.#client.hvals(this.#k.environments(workspaceId, projectId))
    return values.map((v) => JSON.parse(v) as Environment).sort(byCreation)
  }

  async renameProject(
    workspaceId: string,
    projectId: string,
    name: string,
  ): Promise<Project | 'name_taken' | undefined> {
    const reply = await this.#client.anvilRenameField(this.#k.projects(workspaceId), projectId, name)
    if (reply === null) return undefined
    return reply === '' ? 'name_taken' : (JSON.parse(reply) as Project)
  }

  async renameEnvironment(
    projectId: string,
    environmentId: string,
    name: string,
  ): Promise<Environment | 'name_taken' | undefined> {
    const workspaceId = await this.#client.get(this.#k.projectWorkspace(projectId))
    if (!workspaceId) return undefined
    const hash = this.#k.environments(workspaceId, projectId)
    const reply = await this.#client.anvilRenameField(hash, environmentId, name)
    if (reply === null) return undefined
    return reply === '' ? 'name_taken' : (JSON.parse(reply) as Environment)
  }

  async deleteEnvironment(projectId: string, environmentId: string): Promise<DeleteOutcome> {
    const ws = await this.#client.get(this.#k.projectWorkspace(projectId))
    if (!ws) return undefined
    const environment = (await this.listEnvironments(projectId)).find((e) => e.id === environmentId)
    if (!environment) return undefined
    const target = this.#k.environments(ws, projectId)
    return this.#deleteScope(ws, 'environment', environmentId, environment.name, target, [])
  }

  async deleteProject(workspaceId: string, projectId: string): Promise<DeleteOutcome> {
    const project = (await this.listProjects(workspaceId)).find((p) => p.id === projectId)
    if (!project) return undefined
    const target = this.#k.environments(workspaceId, projectId)
    const outcome = await this.#deleteScope(workspaceId, 'project', projectId, project.name, target, [])
    if (outcome?.deleted) await this.#client.del(this.#k.projectWorkspace(projectId))
    return outcome
  }

  // Everything of the workspace is under its hash tag, so one script deletes it all: the records, the
  // environments of every project, and the usage and endpoint counts of the months still kept; then the
  // global indexes go, and the other gateways hear of it.
  async deleteWorkspace(workspaceId: string): Promise<DeleteOutcome> {
    const workspace = await this.getWorkspace(workspaceId)
    if (!workspace) return undefined
    const projects = await this.listProjects(workspaceId)
    const k = this.#k
    const now = this.#clock ? this.#clock() : Date.now()
    const months = keptMonths(Date.parse(workspace.created_at), now)
    const extra = [
      ...projects.map((p) => k.environments(workspaceId, p.id)),
      ...months.flatMap((m) => [k.usage(workspaceId, m), k.endpoints(workspaceId, m)]),
    ]
    const outcome = await this.#deleteScope(
      workspaceId,
      'workspace',
      workspaceId,
      '',
      k.workspace(workspaceId),
      extra,
    )
    if (!outcome?.deleted) return outcome
    await Promise.all([
      ...projects.map((p) => this.#client.del(k.projectWorkspace(p.id))),
      this.#client.srem(k.workspaceIds(), workspaceId),
      this.#client.zrem(k.workspacesByTime(), workspaceId),
    ])
    const event = { type: 'workspace', id: workspaceId, origin: this.#invalidation.origin }
    await this.#client.publish(k.channel, JSON.stringify(event))
    this.#invalidation.emit({ type: 'workspace', id: workspaceId })
    return outcome
  }

  // delete-scope.lua, handed the workspace's keys as read (again when keys came or went meanwhile); the
  // global indexes of the keys it deleted go afterwards (other slots).
  async #deleteScope(
    ws: string,
    kind: 'environment' | 'project' | 'workspace',
    id: string,
    name: string,
    target: string,
    extra: string[],
  ): Promise<DeleteOutcome> {
    const k = this.#k
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const ids = await this.#client.smembers(k.keys(ws))
      const keys = [
        k.keys(ws),
        k.keysByTime(ws),
        k.keyRotations(ws),
        k.projects(ws),
        target,
        ...ids.map((keyId) => k.key(ws, keyId)),
        ...extra,
      ]
      const now = JSON.stringify(new Date(this.#clock ? this.#clock() : Date.now()).toISOString())
      const reply = await this.#client.anvilDeleteScope(keys.length, ...keys, kind, id, name, now, ids.length)
      const [status, ...rest] = reply.map(String)
      if (status === '-1') continue
      if (status === '0') return undefined
      if (status === '2') return { deleted: false, live: await this.getKeys(ws, rest) }
      const removals: Promise<number>[] = []
      const keyIds: string[] = []
      for (let i = 0; i + 1 < rest.length; i += 2) {
        keyIds.push(rest[i]!)
        removals.push(this.#client.del(k.keyWorkspace(rest[i]!)), this.#client.del(k.keyByHash(rest[i + 1]!)))
      }
      await Promise.all(removals)
      return { deleted: true, keys: keyIds }
    }
    throw contended()
  }

  async createKey(input: NewKey, max?: number): Promise<ApiKeyRecord> {
    const key: ApiKeyRecord = {
      ...input,
      id: newId('key'),
      revoked_at: null,
      rotated_to: null,
      created_at: this.#now(),
    }
    const ws = key.workspace_id
    const fields = encodeKey(key)
    // the script counts the live keys of the set it is handed and checks it was handed all of them
    let created = -1
    for (let attempt = 0; attempt < CAS_ATTEMPTS && created === -1; attempt++) {
      const ids = max === undefined ? [] : await this.#client.smembers(this.#k.keys(ws))
      const keys = [this.#k.keys(ws), this.#k.key(ws, key.id), ...ids.map((id) => this.#k.key(ws, id))]
      const now = JSON.stringify(new Date(this.#clock ? this.#clock() : Date.now()).toISOString())
      created = await this.#client.anvilCreateKey(keys.length, ...keys, max ?? -1, now, key.id, ...fields)
    }
    if (created === 0) throw capExceeded('max_keys', max!)
    if (created !== 1) throw contended()
    // the indexes last: a key becomes findable only once its record is complete
    await Promise.all([
      this.#client.set(this.#k.keyWorkspace(key.id), ws),
      this.#client.set(this.#k.keyByHash(key.hash), `${ws} ${key.id}`),
      this.#client.zadd(this.#k.keysByTime(ws), Date.parse(key.created_at), key.id),
    ])
    return key
  }

  async getKey(id: string): Promise<ApiKeyRecord | undefined> {
    const ws = await this.#client.get(this.#k.keyWorkspace(id))
    if (!ws) return undefined
    return decodeKey(fieldsOf(await this.#client.hgetall(this.#k.key(ws, id))))
  }

  // Two round trips on a cache miss: the global hash index, then the key and its workspace together.
  lookupKey(hash: string): Promise<KeyLookup | undefined> {
    return deadline(this.#lookupKey(hash), this.#timeoutMs)
  }

  async #lookupKey(hash: string): Promise<KeyLookup | undefined> {
    const ref = await this.#client.get(this.#k.keyByHash(hash))
    if (!ref) return undefined
    const [ws, id] = ref.split(' ') as [string, string]
    const [keyFields, wsFields] = await Promise.all([
      this.#client.hgetall(this.#k.key(ws, id)),
      this.#client.hgetall(this.#k.workspace(ws)),
    ])
    const key = decodeKey(fieldsOf(keyFields))
    const workspace = decodeWorkspace(fieldsOf(wsFields))
    return key && workspace ? { key, workspace } : undefined
  }

  async updateKey(
    id: string,
    patch: Partial<Pick<ApiKeyRecord, 'revoked_at' | 'expires_at' | 'rotated_to'>>,
  ): Promise<ApiKeyRecord | undefined> {
    const ws = await this.#client.get(this.#k.keyWorkspace(id))
    if (!ws) return undefined
    const fields = encodeFields({
      revoked_at: patch.revoked_at,
      expires_at: patch.expires_at,
      rotated_to: patch.rotated_to,
    })
    // the reverse link first: a reader checks it against the old key's rotated_to, so an index entry
    // whose patch then failed shows nothing
    if (patch.rotated_to) await this.#client.hset(this.#k.keyRotations(ws), patch.rotated_to, id)
    return this.#patch(this.#k.key(ws, id), 'key', fields, decodeKey, (k) => ({ type: 'key', hash: k.hash }))
  }

  async listKeys(workspaceId: string): Promise<ApiKeyRecord[]> {
    const ids = await this.#client.smembers(this.#k.keys(workspaceId))
    const all = await Promise.all(
      ids.map(async (id) => decodeKey(fieldsOf(await this.#client.hgetall(this.#k.key(workspaceId, id))))),
    )
    return all.filter((k) => k !== undefined).sort(byCreation)
  }

  // One round trip, shared: the decisions made in the same event-loop turn for the same cluster slot
  // leave together as one EVALSHA of consume.lua, which decides them in arrival order (consume-batch.ts).
  consume(req: ConsumeRequest): Promise<LimitDecision> {
    const now = this.#clock?.()
    return this.#batcher.decide(req, candidateMonths(now ?? Date.now()), now)
  }

  // Only on the failure path: one EVALSHA of refund.lua, never on an admitted request's way in.
  async refund(charge: Charge): Promise<void> {
    const usage = this.#k.usage(charge.workspaceId, charge.month, charge.mode)
    await deadline(this.#client.anvilRefund(usage, charge.keyId, charge.day), this.#timeoutMs)
  }

  async usage(workspaceId: string, month?: string): Promise<Usage> {
    const m = month ?? monthOf(this.#clock ? this.#clock() : Date.now())
    const [live, test] = await Promise.all([
      this.#client.hgetall(this.#k.usage(workspaceId, m)),
      this.#client.hgetall(this.#k.usage(workspaceId, m, 'test')),
    ])
    return decodeUsage(m, live, test)
  }

  // One script call per workspace of the batch (its hash and record share a slot), all sent together.
  async addEndpointUsage(month: string, batch: EndpointBatch): Promise<void> {
    const now = this.#clock ? this.#clock() : Date.now()
    const [y, m] = month.split('-').map(Number) as [number, number]
    const expireMs = Math.max(1_000, Date.UTC(y, m, 1) + USAGE_KEPT_MS - now)
    await Promise.all(
      [...batch].map(([workspaceId, endpoints]) => {
        const fields = [...endpoints].flatMap(([name, counts]) => encodeEndpointCounts(name, counts))
        if (fields.length === 0) return undefined
        return this.#client.anvilAddEndpointUsage(
          this.#k.endpoints(workspaceId, month),
          this.#k.workspace(workspaceId),
          expireMs,
          ...fields,
        )
      }),
    )
  }

  async endpointUsage(workspaceId: string, month: string): Promise<Record<string, EndpointCounts>> {
    return decodeEndpointUsage(await this.#client.hgetall(this.#k.endpoints(workspaceId, month)))
  }

  // Patch a record through patch-record.lua (which publishes the change to the other gateways), then
  // tell this process's listeners before returning, as the embedded store does.
  async #patch<T>(
    hashKey: string,
    type: 'key' | 'workspace',
    fields: string[],
    decode: (fields: Map<string, string>) => T | undefined,
    eventOf: (record: T) => StoreEvent,
  ): Promise<T | undefined> {
    const name = type === 'key' ? 'hash' : 'id'
    const origin = this.#invalidation.origin
    const reply = await this.#client.anvilPatchRecord(hashKey, this.#k.channel, type, name, origin, ...fields)
    const record = decode(fieldsOf(reply))
    if (record !== undefined) this.#invalidation.emit(eventOf(record))
    return record
  }

  async pageWorkspaces(page: PageRequest): Promise<Page<Workspace> | undefined> {
    const k = this.#k
    const ids = await this.#pageIds(k.workspacesByTime(), k.workspaceIds(), page, (id) => k.workspace(id))
    if (!ids) return undefined
    // auto-pipelined: one round trip for the page (one per node on a cluster)
    const rows = await Promise.all(ids.data.map((id) => this.#client.hgetall(k.workspace(id))))
    const data = rows.map((r) => decodeWorkspace(fieldsOf(r))).filter((w) => w !== undefined)
    return { data, has_more: ids.has_more }
  }

  async pageKeys(workspaceId: string, page: PageRequest): Promise<Page<ApiKeyRecord> | undefined> {
    const k = this.#k
    const ws = workspaceId
    const ids = await this.#pageIds(k.keysByTime(ws), k.keys(ws), page, (id) => k.key(ws, id))
    if (!ids) return undefined
    return { data: await this.getKeys(ws, ids.data), has_more: ids.has_more }
  }

  // auto-pipelined: one round trip for all of them
  async getKeys(workspaceId: string, ids: readonly string[]): Promise<ApiKeyRecord[]> {
    const rows = await Promise.all(ids.map((id) => this.#client.hgetall(this.#k.key(workspaceId, id))))
    return rows
      .map((r) => decodeKey(fieldsOf(r)))
      .filter((key): key is ApiKeyRecord => key?.workspace_id === workspaceId)
  }

  // One HMGET of the workspace's rotation index; a workspace created by an older version has its index
  // built on first use (every key's rotated_to, once), then marked complete.
  async rotatedFrom(workspaceId: string, ids: readonly string[]): Promise<Map<string, string>> {
    const index = this.#k.keyRotations(workspaceId)
    const [complete, ...from] = await this.#client.hmget(index, ROTATIONS_COMPLETE, ...ids)
    const links = complete === null ? await this.#indexRotations(workspaceId) : undefined
    const out = new Map<string, string>()
    ids.forEach((id, i) => {
      const old = links ? links.get(id) : from[i]
      if (old) out.set(id, old)
    })
    return out
  }

  async #indexRotations(workspaceId: string): Promise<Map<string, string>> {
    const c = this.#client
    const ids = await c.smembers(this.#k.keys(workspaceId))
    const rotatedTo = await Promise.all(ids.map((id) => c.hget(this.#k.key(workspaceId, id), 'rotated_to')))
    const links = new Map<string, string>()
    ids.forEach((id, i) => {
      const to = rotatedTo[i] ? (JSON.parse(rotatedTo[i]!) as string | null) : null
      if (to) links.set(to, id)
    })
    await c.hset(this.#k.keyRotations(workspaceId), ...[...links].flat(), ROTATIONS_COMPLETE, '1')
    return links
  }

  // A page of ids from a ZSET by creation time, newest first (page-ids.lua: the cursor's rank and the
  // range in one round trip, pipelined with the migration check). Records written by a version without
  // the ZSET are only in the old set: when the set holds more than the ZSET, the missing ones are added
  // (with their created_at) and the page is read again.
  async #pageIds(
    zset: string,
    set: string,
    page: PageRequest,
    recordKey: (id: string) => string,
  ): Promise<Page<string> | undefined> {
    const c = this.#client
    const read = () =>
      Promise.all([c.zcard(zset), c.scard(set), c.anvilPageIds(zset, page.startingAfter ?? '', page.limit)])
    const [inZset, inSet, first] = await read()
    let ids = first
    if (inSet > inZset) {
      await this.#backfill(zset, set, recordKey)
      ids = (await read())[2]
    }
    if (ids === null) return undefined
    return { data: ids.slice(0, page.limit), has_more: ids.length > page.limit }
  }

  async #backfill(zset: string, set: string, recordKey: (id: string) => string): Promise<void> {
    const c = this.#client
    const ids = await c.smembers(set)
    const scores = await c.zmscore(zset, ...ids)
    const missing = ids.filter((_, i) => scores[i] === null)
    const created = await Promise.all(missing.map((id) => c.hget(recordKey(id), 'created_at')))
    const args: (string | number)[] = []
    missing.forEach((id, i) => {
      const at = created[i]
      if (at) args.push(Date.parse(JSON.parse(at) as string), id)
    })
    if (args.length > 0) await c.zadd(zset, ...args)
  }

  async idempotencyBegin(
    ref: IdempotencyRef,
    fingerprint: string,
    lockMs: number,
  ): Promise<IdempotencyRecord | undefined> {
    // SET NX takes the key for the first request; a record that expires between SET and GET is retried
    for (let attempt = 0; attempt < 3; attempt++) {
      const found = await this.#idempotency.begin(ref, fingerprint, lockMs)
      if (found !== null) return found
    }
    throw contended()
  }

  async idempotencyFinish(
    ref: IdempotencyRef,
    record: IdempotencyRecord,
    ttlSeconds: number,
    maxScopeBytes: number,
  ): Promise<void> {
    await this.#idempotency.keep(ref, record, ttlSeconds, maxScopeBytes)
  }

  async idempotencyRelease(ref: IdempotencyRef): Promise<void> {
    await this.#idempotency.release(ref)
  }
}
