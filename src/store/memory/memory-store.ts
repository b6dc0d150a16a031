import { decide, receipt } from '../../limits/decide.ts'
import { limitSubject } from '../../limits/decision.ts'
import { dayOf, monthOf } from '../../limits/month.ts'
import type { PlanName, PlanOverrides } from '../../limits/plans.ts'
import { capExceeded, isLiveKey } from '../../limits/tenant-caps.ts'
import {
  addEndpointCounts,
  type EndpointBatch,
  type EndpointCounts,
  emptyEndpointCounts,
} from '../endpoint-usage.ts'
import { newId } from '../ids.ts'
import { OrderedIds } from '../ordered-ids.ts'
import type { StoreLog } from '../redis/connection.ts'
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
  UsageCounts,
  Workspace,
} from '../types.ts'
import { keptBytes } from '../types.ts'
import { lockDataDir } from './data-dir-lock.ts'
import { Journal } from './journal.ts'
import {
  type DropLine,
  type EndpointsLine,
  type SnapshotState,
  snapshotPieces,
  type UsageLine,
  type WorkspaceUsage,
} from './snapshot-pieces.ts'

type Snapshot = SnapshotState & { version: 1 }

export interface MemoryStoreOptions {
  dataDir: string | null
  clock?: () => number
  usageFlushMs?: number
  log?: StoreLog
  // tests: compaction thresholds and the first retry delay of a failed write (journal.ts)
  journal?: { compactRatio?: number; minCompactBytes?: number; retryMs?: number }
}

type Entry =
  | { t: 'workspace'; v: Workspace }
  | { t: 'project'; v: Project }
  | { t: 'environment'; v: Environment }
  | { t: 'key'; v: ApiKeyRecord }
  | UsageLine
  | EndpointsLine
  | DropLine

const emptyCounts = (): UsageCounts => ({ requests: 0, refused_rate: 0, refused_quota: 0 })

// The embedded store: state in memory; each change to a durable record is one line appended to
// DATA_DIR/store.<n>.log (fsynced before the call resolves), usage counters every few seconds and at
// close; compaction folds the logs into DATA_DIR/store.json off the request path (journal.ts).
// DATA_DIR/.lock keeps a second process out.
export class MemoryStore implements Store {
  readonly kind = 'memory' as const
  #workspaces = new Map<string, Workspace>()
  #bootstrapClaimed = false
  #projects = new Map<string, Project>()
  #environments = new Map<string, Environment>()
  #keys = new Map<string, ApiKeyRecord>()
  #keysByHash = new Map<string, ApiKeyRecord>()
  // the lists' order (pages are a binary search and a slice), and each rotation's replacement → the key it
  // replaced (the console shows both ends of a rotation)
  #workspaceOrder = new OrderedIds()
  #keyOrder = new Map<string, OrderedIds>()
  #rotatedFrom = new Map<string, string>()
  #usage: Snapshot['usage'] = {}
  #endpoints: Snapshot['endpoints'] = {}
  // GCRA state (theoretical arrival times) by key id and by workspace id: the ids are the records' own
  // strings, so a look-up hashes nothing new (a key built per request, `k:<id>`, was hashed every time)
  #keyTats = new Map<string, number>()
  #workspaceTats = new Map<string, number>()
  #listeners = new Set<(event: StoreEvent) => void>()
  #clock: () => number
  #journal: Journal | null = null
  #release: (() => Promise<void>) | undefined
  // month → workspace id → key ids whose counters changed since the last usage line
  #usageDirty = new Map<string, Map<string, Set<string>>>()
  #flushTimer: NodeJS.Timeout | undefined
  // Idempotency-Key records: in memory only (a restart forgets them, as it ends the requests they guard),
  // by `<scope> <id>`; and per scope, what its kept answers weigh, oldest first (Map order)
  #idempotency = new Map<string, { record: IdempotencyRecord; expiresAt: number; scope: string }>()
  #kept = new Map<string, { bytes: number; records: Map<string, number> }>()
  #idempotencySweep: NodeJS.Timeout | undefined

  private constructor(options: MemoryStoreOptions) {
    this.#clock = options.clock ?? Date.now
    // expired records are dropped once a minute, so the map holds at most a TTL's worth of keys
    this.#idempotencySweep = setInterval(() => this.#sweepIdempotency(), 60_000)
    this.#idempotencySweep.unref()
  }

  static async open(options: MemoryStoreOptions): Promise<MemoryStore> {
    const store = new MemoryStore(options)
    if (options.dataDir) {
      const dataDir = options.dataDir
      store.#release = await lockDataDir(dataDir)
      try {
        store.#journal = await Journal.open(
          {
            dir: dataDir,
            name: 'store',
            snapshot: () => snapshotPieces(store.#snapshot()),
            log: options.log ?? (() => {}),
            ...options.journal,
          },
          {
            snapshot: (doc) => doc && store.#load(doc as unknown as Snapshot),
            entry: (entry) => store.#apply(entry as unknown as Entry),
          },
        )
      } catch (err) {
        await store.#release()
        throw err
      }
      const every = options.usageFlushMs ?? 5_000
      store.#flushTimer = setInterval(() => store.#flushUsage(), every)
      store.#flushTimer.unref()
    }
    return store
  }

  #apply(entry: Entry): void {
    switch (entry.t) {
      case 'workspace':
        this.#setWorkspace(entry.v)
        break
      case 'project':
        this.#projects.set(entry.v.id, entry.v)
        break
      case 'environment':
        this.#environments.set(entry.v.id, entry.v)
        break
      case 'key':
        this.#setKey(entry.v)
        break
      case 'usage': {
        const u = this.#usageFor(entry.m, entry.w)
        u.workspace = entry.c
        Object.assign(u.keys, entry.k)
        u.daily = entry.d
        break
      }
      case 'endpoints':
        Object.assign(this.#endpointsFor(entry.m, entry.w), entry.e)
        break
      case 'drop':
        this.#drop(entry)
        break
    }
  }

  #load(snap: Snapshot): void {
    for (const w of snap.workspaces) this.#setWorkspace(w)
    for (const p of snap.projects) this.#projects.set(p.id, p)
    for (const e of snap.environments) this.#environments.set(e.id, e)
    for (const k of snap.keys) this.#setKey(k)
    this.#usage = snap.usage ?? {}
    this.#endpoints = snap.endpoints ?? {}
  }

  #setWorkspace(ws: Workspace): void {
    this.#workspaces.set(ws.id, ws)
    this.#workspaceOrder.add(ws)
  }

  #setKey(key: ApiKeyRecord): void {
    this.#keys.set(key.id, key)
    this.#keysByHash.set(key.hash, key)
    let order = this.#keyOrder.get(key.workspace_id)
    if (!order) {
      order = new OrderedIds()
      this.#keyOrder.set(key.workspace_id, order)
    }
    order.add(key)
    if (key.rotated_to) this.#rotatedFrom.set(key.rotated_to, key.id)
  }

  #snapshot(): Snapshot {
    return {
      version: 1,
      workspaces: [...this.#workspaces.values()],
      projects: [...this.#projects.values()],
      environments: [...this.#environments.values()],
      keys: [...this.#keys.values()],
      usage: this.#usage,
      endpoints: this.#endpoints,
    }
  }

  // A durable change: resolves once its log line is on disk.
  async #persist(entry: Entry): Promise<void> {
    await this.#journal?.append(entry as unknown as Record<string, unknown>)
  }

  // Counters change on every request: one line per workspace and month, with only the keys that moved.
  #flushUsage(): void {
    if (!this.#journal) return
    for (const [m, byWs] of this.#usageDirty) {
      for (const [w, keyIds] of byWs) {
        const u = this.#usageFor(m, w)
        const k = Object.fromEntries([...keyIds].map((id) => [id, { ...u.keys[id]! }]))
        this.#journal.note({ t: 'usage', m, w, c: { ...u.workspace }, k, d: { ...u.daily } })
      }
    }
    this.#usageDirty.clear()
  }

  #markUsage(month: string, workspaceId: string, keyId: string): void {
    let byWs = this.#usageDirty.get(month)
    if (!byWs) {
      byWs = new Map()
      this.#usageDirty.set(month, byWs)
    }
    let keys = byWs.get(workspaceId)
    if (!keys) {
      keys = new Set()
      byWs.set(workspaceId, keys)
    }
    keys.add(keyId)
  }

  #emit(event: StoreEvent): void {
    for (const l of this.#listeners) l(event)
  }

  #now(): string {
    return new Date(this.#clock()).toISOString()
  }

  // Folds the logs into a snapshot now (it also happens on its own as the logs grow, and at close).
  async compact(): Promise<void> {
    this.#flushUsage()
    await this.#journal?.compact()
  }

  async ready(): Promise<boolean> {
    return true
  }

  async close(): Promise<void> {
    clearInterval(this.#flushTimer)
    clearInterval(this.#idempotencySweep)
    this.#listeners.clear()
    if (!this.#journal) return
    this.#flushUsage()
    try {
      await this.#journal.close()
    } finally {
      await this.#release?.()
    }
  }

  // one process: every change is told to the listeners before it resolves
  invalidationLive(): boolean {
    return true
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  async createWorkspace(input: NewWorkspace): Promise<Workspace> {
    const ws: Workspace = {
      id: input.id ?? newId('ws'),
      name: input.name,
      plan: input.plan,
      overrides: {},
      created_at: input.created_at ?? this.#now(),
    }
    this.#setWorkspace(ws)
    await this.#persist({ t: 'workspace', v: ws })
    return structuredClone(ws)
  }

  async getWorkspace(id: string): Promise<Workspace | undefined> {
    const ws = this.#workspaces.get(id)
    return ws && structuredClone(ws)
  }

  async updateWorkspace(
    id: string,
    patch: { name?: string; plan?: PlanName; overrides?: PlanOverrides },
  ): Promise<Workspace | undefined> {
    const ws = this.#workspaces.get(id)
    if (!ws) return undefined
    if (patch.name !== undefined) ws.name = patch.name
    if (patch.plan) ws.plan = patch.plan
    if (patch.overrides) ws.overrides = { ...ws.overrides, ...patch.overrides }
    // caches hear of the change even if the disk refuses it for now: it is in force in memory
    const saved = this.#persist({ t: 'workspace', v: ws })
    this.#emit({ type: 'workspace', id })
    await saved
    return structuredClone(ws)
  }

  async listWorkspaces(): Promise<Workspace[]> {
    return structuredClone([...this.#workspaces.values()])
  }

  // one process owns the embedded store: the first claim wins, for the life of this process
  async claimBootstrap(): Promise<boolean> {
    if (this.#bootstrapClaimed) return false
    this.#bootstrapClaimed = true
    return true
  }

  // Checks and creates without an await in between: one event-loop turn is this store's atomic step.
  async ensureProject(workspaceId: string, name: string, max?: number): Promise<Project> {
    let count = 0
    for (const p of this.#projects.values()) {
      if (p.workspace_id !== workspaceId) continue
      if (p.name === name) return structuredClone(p)
      count++
    }
    if (max !== undefined && count >= max) throw capExceeded('max_projects', max)
    const p: Project = { id: newId('prj'), workspace_id: workspaceId, name, created_at: this.#now() }
    this.#projects.set(p.id, p)
    await this.#persist({ t: 'project', v: p })
    return structuredClone(p)
  }

  async ensureEnvironment(
    projectId: string,
    name: string,
    mode: KeyMode,
    max?: number,
  ): Promise<Environment> {
    for (const e of this.#environments.values()) {
      if (e.project_id === projectId && e.name === name) return structuredClone(e)
    }
    const project = this.#projects.get(projectId)
    if (!project) throw new Error(`unknown project ${projectId}`)
    if (max !== undefined) {
      let count = 0
      for (const e of this.#environments.values()) if (e.workspace_id === project.workspace_id) count++
      if (count >= max) throw capExceeded('max_environments', max)
    }
    const e: Environment = {
      id: newId('env'),
      workspace_id: project.workspace_id,
      project_id: projectId,
      name,
      mode,
      created_at: this.#now(),
    }
    this.#environments.set(e.id, e)
    await this.#persist({ t: 'environment', v: e })
    return structuredClone(e)
  }

  async listProjects(workspaceId: string): Promise<Project[]> {
    return structuredClone([...this.#projects.values()].filter((p) => p.workspace_id === workspaceId))
  }

  async listEnvironments(projectId: string): Promise<Environment[]> {
    return structuredClone([...this.#environments.values()].filter((e) => e.project_id === projectId))
  }

  async renameProject(
    workspaceId: string,
    projectId: string,
    name: string,
  ): Promise<Project | 'name_taken' | undefined> {
    const project = this.#projects.get(projectId)
    if (project?.workspace_id !== workspaceId) return undefined
    for (const p of this.#projects.values())
      if (p.workspace_id === workspaceId && p.name === name && p.id !== projectId) return 'name_taken'
    project.name = name
    await this.#persist({ t: 'project', v: project })
    return structuredClone(project)
  }

  async renameEnvironment(
    projectId: string,
    environmentId: string,
    name: string,
  ): Promise<Environment | 'name_taken' | undefined> {
    const environment = this.#environments.get(environmentId)
    if (environment?.project_id !== projectId) return undefined
    for (const e of this.#environments.values())
      if (e.project_id === projectId && e.name === name && e.id !== environmentId) return 'name_taken'
    environment.name = name
    await this.#persist({ t: 'environment', v: environment })
    return structuredClone(environment)
  }

  // The keys a delete takes with it, or the live ones among them that refuse it; then the records, in one
  // event-loop turn (no await before the last removal).
  async #deleteScope(
    inScope: (key: ApiKeyRecord) => boolean,
    records: DropLine[],
    workspaceId: string,
  ): Promise<DeleteOutcome> {
    const now = this.#now()
    const ids = this.#keyOrder.get(workspaceId)?.olderThan() ?? []
    const keys = [...ids].map((id) => this.#keys.get(id)!).filter(inScope)
    const live = keys.filter((k) => isLiveKey(k, now))
    if (live.length > 0) return { deleted: false, live: structuredClone(live) }
    const lines: DropLine[] = [
      ...keys.map((k) => ({ t: 'drop' as const, k: 'key' as const, id: k.id })),
      ...records,
    ]
    for (const line of lines) this.#drop(line)
    await Promise.all(lines.map((line) => this.#persist(line)))
    return { deleted: true, keys: keys.map((k) => k.id) }
  }

  async deleteEnvironment(projectId: string, environmentId: string): Promise<DeleteOutcome> {
    const environment = this.#environments.get(environmentId)
    if (environment?.project_id !== projectId) return undefined
    return this.#deleteScope(
      (k) => k.environment_id === environmentId,
      [{ t: 'drop', k: 'environment', id: environmentId }],
      environment.workspace_id,
    )
  }

  async deleteProject(workspaceId: string, projectId: string): Promise<DeleteOutcome> {
    const project = this.#projects.get(projectId)
    if (project?.workspace_id !== workspaceId) return undefined
    const environments = [...this.#environments.values()].filter((e) => e.project_id === projectId)
    return this.#deleteScope(
      (k) => k.project_id === projectId,
      [
        ...environments.map((e) => ({ t: 'drop' as const, k: 'environment' as const, id: e.id })),
        { t: 'drop', k: 'project', id: projectId },
      ],
      workspaceId,
    )
  }

  async deleteWorkspace(workspaceId: string): Promise<DeleteOutcome> {
    if (!this.#workspaces.has(workspaceId)) return undefined
    const projects = [...this.#projects.values()].filter((p) => p.workspace_id === workspaceId)
    const environments = [...this.#environments.values()].filter((e) => e.workspace_id === workspaceId)
    const outcome = await this.#deleteScope(
      () => true,
      [
        ...environments.map((e) => ({ t: 'drop' as const, k: 'environment' as const, id: e.id })),
        ...projects.map((p) => ({ t: 'drop' as const, k: 'project' as const, id: p.id })),
        { t: 'drop', k: 'workspace', id: workspaceId },
      ],
      workspaceId,
    )
    if (outcome?.deleted) this.#emit({ type: 'workspace', id: workspaceId })
    return outcome
  }

  // Removes one record and everything indexed by it (a workspace: its usage and limiter state too).
  #drop(line: DropLine): void {
    switch (line.k) {
      case 'key': {
        const key = this.#keys.get(line.id)
        if (!key) return
        this.#keys.delete(key.id)
        this.#keysByHash.delete(key.hash)
        this.#keyOrder.get(key.workspace_id)?.delete(new Set([key.id]))
        this.#keyTats.delete(key.id)
        if (key.rotated_to) this.#rotatedFrom.delete(key.rotated_to)
        this.#rotatedFrom.delete(key.id)
        return
      }
      case 'environment':
        this.#environments.delete(line.id)
        return
      case 'project':
        this.#projects.delete(line.id)
        return
      case 'workspace':
        this.#workspaces.delete(line.id)
        this.#workspaceOrder.delete(new Set([line.id]))
        this.#keyOrder.delete(line.id)
        this.#workspaceTats.delete(line.id)
        for (const byWs of Object.values(this.#usage)) delete byWs[line.id]
        for (const byWs of Object.values(this.#endpoints)) delete byWs[line.id]
        for (const byWs of this.#usageDirty.values()) byWs.delete(line.id)
        return
    }
  }

  async createKey(input: NewKey, max?: number): Promise<ApiKeyRecord> {
    if (max !== undefined) {
      const now = this.#now()
      let live = 0
      for (const k of this.#keys.values())
        if (k.workspace_id === input.workspace_id && isLiveKey(k, now)) live++
      if (live >= max) throw capExceeded('max_keys', max)
    }
    const key: ApiKeyRecord = {
      ...input,
      id: newId('key'),
      revoked_at: null,
      rotated_to: null,
      created_at: this.#now(),
    }
    this.#setKey(key)
    await this.#persist({ t: 'key', v: key })
    return structuredClone(key)
  }

  async getKey(id: string): Promise<ApiKeyRecord | undefined> {
    const k = this.#keys.get(id)
    return k && structuredClone(k)
  }

  async lookupKey(hash: string): Promise<KeyLookup | undefined> {
    const key = this.#keysByHash.get(hash)
    const workspace = key && this.#workspaces.get(key.workspace_id)
    if (!key || !workspace) return undefined
    return { key: structuredClone(key), workspace: structuredClone(workspace) }
  }

  async updateKey(
    id: string,
    patch: Partial<Pick<ApiKeyRecord, 'revoked_at' | 'expires_at' | 'rotated_to'>>,
  ): Promise<ApiKeyRecord | undefined> {
    const key = this.#keys.get(id)
    if (!key) return undefined
    Object.assign(key, patch)
    if (key.rotated_to) this.#rotatedFrom.set(key.rotated_to, key.id)
    // a revocation reaches the caches even if the disk refuses it for now: it is in force in memory
    const saved = this.#persist({ t: 'key', v: key })
    this.#emit({ type: 'key', hash: key.hash })
    await saved
    return structuredClone(key)
  }

  async listKeys(workspaceId: string): Promise<ApiKeyRecord[]> {
    return structuredClone([...this.#keys.values()].filter((k) => k.workspace_id === workspaceId))
  }

  #usageFor(month: string, workspaceId: string): WorkspaceUsage {
    this.#usage[month] ??= {}
    const byWs = this.#usage[month]
    byWs[workspaceId] ??= { workspace: emptyCounts(), keys: {}, daily: {} }
    return byWs[workspaceId]
  }

  async consume(req: ConsumeRequest): Promise<LimitDecision> {
    return this.consumeNow(req)
  }

  consumeNow(req: ConsumeRequest): LimitDecision {
    const now = this.#clock()
    const month = monthOf(now)
    // test mode's workspace-wide counters and rate are apart from live traffic's (limitSubject)
    const subject = limitSubject(req.workspaceId, req.mode)
    const usage = this.#usageFor(month, subject)
    const keyUsage = usage.keys[req.keyId]
    const { decision, keyTat, workspaceTat } = decide(
      req,
      now,
      { key: this.#keyTats.get(req.keyId), workspace: this.#workspaceTats.get(subject) },
      { workspaceMonth: usage.workspace.requests, keyMonth: keyUsage?.requests ?? 0 },
    )
    if (decision.allowed) {
      this.#keyTats.set(req.keyId, keyTat)
      this.#workspaceTats.set(subject, workspaceTat)
    }
    // rate-only (job status polls): no usage counter moves, so there is nothing to journal or refund
    if (req.rateOnly === true) return decision
    const counts = keyUsage ?? emptyCounts()
    usage.keys[req.keyId] = counts
    this.#markUsage(month, subject, req.keyId)
    if (decision.allowed) {
      usage.workspace.requests++
      counts.requests++
      const day = dayOf(now)
      usage.daily[day] = (usage.daily[day] ?? 0) + 1
      decision.charge = receipt(req, day)
    } else {
      const field =
        decision.reason === 'quota' || decision.reason === 'key_quota' ? 'refused_quota' : 'refused_rate'
      usage.workspace[field]++
      counts[field]++
    }
    return decision
  }

  async refund(charge: Charge): Promise<void> {
    const subject = limitSubject(charge.workspaceId, charge.mode)
    const usage = this.#usage[charge.month]?.[subject]
    if (!usage) return
    const down = (n: number | undefined) => Math.max(0, (n ?? 0) - 1)
    usage.workspace.requests = down(usage.workspace.requests)
    const keyUsage = usage.keys[charge.keyId]
    if (keyUsage) keyUsage.requests = down(keyUsage.requests)
    const day = `${charge.month}-${charge.day}`
    if (usage.daily[day] !== undefined) usage.daily[day] = down(usage.daily[day])
    this.#markUsage(charge.month, subject, charge.keyId)
  }

  #endpointsFor(month: string, workspaceId: string): Record<string, EndpointCounts> {
    this.#endpoints[month] ??= {}
    const byWs = this.#endpoints[month]
    byWs[workspaceId] ??= {}
    return byWs[workspaceId]
  }

  // Added now, noted in the log with the endpoints' new totals (flushed with the next durable change or
  // within a few seconds, like the usage counters). A workspace deleted meanwhile is not brought back.
  async addEndpointUsage(month: string, batch: EndpointBatch): Promise<void> {
    for (const [workspaceId, endpoints] of batch) {
      if (!this.#workspaces.has(workspaceId)) continue
      const stored = this.#endpointsFor(month, workspaceId)
      const changed: Record<string, EndpointCounts> = {}
      for (const [name, counts] of endpoints) {
        if (!Object.hasOwn(stored, name)) stored[name] = emptyEndpointCounts()
        addEndpointCounts(stored[name]!, counts)
        changed[name] = structuredClone(stored[name]!)
      }
      this.#journal?.note({ t: 'endpoints', m: month, w: workspaceId, e: changed })
    }
  }

  async endpointUsage(workspaceId: string, month: string): Promise<Record<string, EndpointCounts>> {
    return structuredClone(this.#endpoints[month]?.[workspaceId] ?? {})
  }

  async usage(workspaceId: string, month?: string): Promise<Usage> {
    const m = month ?? monthOf(this.#clock())
    const u = this.#usage[m]?.[workspaceId]
    const t = this.#usage[m]?.[limitSubject(workspaceId, 'test')]
    return {
      month: m,
      workspace: u ? { ...u.workspace } : emptyCounts(),
      test: t ? { ...t.workspace } : emptyCounts(),
      // a key counts in its own mode's subject only: the two lists never share a key
      keys: { ...(u ? structuredClone(u.keys) : {}), ...(t ? structuredClone(t.keys) : {}) },
      daily: u ? { ...u.daily } : {},
    }
  }

  // From the lists' order: a binary search for the cursor, then the page's records only.
  async pageWorkspaces(page: PageRequest): Promise<Page<Workspace> | undefined> {
    const ids = this.#workspaceOrder.page(page)
    if (!ids) return undefined
    return { data: ids.data.map((id) => structuredClone(this.#workspaces.get(id)!)), has_more: ids.has_more }
  }

  async pageKeys(workspaceId: string, page: PageRequest): Promise<Page<ApiKeyRecord> | undefined> {
    const ids = (this.#keyOrder.get(workspaceId) ?? new OrderedIds()).page(page)
    if (!ids) return undefined
    return { data: ids.data.map((id) => structuredClone(this.#keys.get(id)!)), has_more: ids.has_more }
  }

  async getKeys(workspaceId: string, ids: readonly string[]): Promise<ApiKeyRecord[]> {
    const found = ids
      .map((id) => this.#keys.get(id))
      .filter((k): k is ApiKeyRecord => k?.workspace_id === workspaceId)
    return structuredClone(found)
  }

  async rotatedFrom(workspaceId: string, ids: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>()
    for (const id of ids) {
      const from = this.#rotatedFrom.get(id)
      if (from !== undefined && this.#keys.get(from)?.workspace_id === workspaceId) out.set(id, from)
    }
    return out
  }

  #sweepIdempotency(): void {
    const now = this.#clock()
    for (const [key, entry] of this.#idempotency) if (entry.expiresAt <= now) this.#dropIdempotency(key)
  }

  // a record leaves, and what it weighed leaves its scope's count
  #dropIdempotency(key: string): void {
    const entry = this.#idempotency.get(key)
    if (!entry) return
    this.#idempotency.delete(key)
    const kept = this.#kept.get(entry.scope)
    const bytes = kept?.records.get(key)
    if (!kept || bytes === undefined) return
    kept.records.delete(key)
    kept.bytes -= bytes
    if (kept.records.size === 0) this.#kept.delete(entry.scope)
  }

  // no await between the look and the take: one event-loop turn is this store's atomic step
  async idempotencyBegin(
    ref: IdempotencyRef,
    fingerprint: string,
    lockMs: number,
  ): Promise<IdempotencyRecord | undefined> {
    const now = this.#clock()
    const key = `${ref.scope} ${ref.id}`
    const entry = this.#idempotency.get(key)
    if (entry && entry.expiresAt > now) return structuredClone(entry.record)
    if (entry) this.#dropIdempotency(key)
    this.#idempotency.set(key, {
      record: { fingerprint, state: 'running' },
      expiresAt: now + lockMs,
      scope: ref.scope,
    })
    return undefined
  }

  // kept, then the scope's oldest answers dropped while it keeps more than maxScopeBytes (as on Redis,
  // idempotency-keep.lua), in one turn
  async idempotencyFinish(
    ref: IdempotencyRef,
    record: IdempotencyRecord,
    ttlSeconds: number,
    maxScopeBytes: number,
  ): Promise<void> {
    const key = `${ref.scope} ${ref.id}`
    this.#dropIdempotency(key)
    this.#idempotency.set(key, {
      record: structuredClone(record),
      expiresAt: this.#clock() + ttlSeconds * 1000,
      scope: ref.scope,
    })
    const bytes = keptBytes(ref, record)
    let kept = this.#kept.get(ref.scope)
    if (!kept) {
      kept = { bytes: 0, records: new Map() }
      this.#kept.set(ref.scope, kept)
    }
    kept.records.set(key, bytes)
    kept.bytes += bytes
    for (const oldest of kept.records.keys()) {
      if (kept.bytes <= maxScopeBytes || oldest === key) break
      this.#dropIdempotency(oldest)
    }
  }

  async idempotencyRelease(ref: IdempotencyRef): Promise<void> {
    this.#dropIdempotency(`${ref.scope} ${ref.id}`)
  }
}
