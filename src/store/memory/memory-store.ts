import { join } from 'node:path'
import type { KeyMode } from '../../keys/format.ts'
import { dayOf, monthOf } from '../../limits/month.ts'
import type { PlanName, PlanOverrides } from '../../limits/plans.ts'
import { newId } from '../ids.ts'
import type {
  ApiKeyRecord,
  Charge,
  ConsumeRequest,
  Environment,
  KeyLookup,
  LimitDecision,
  NewKey,
  Project,
  Store,
  StoreEvent,
  Usage,
  UsageCounts,
  Workspace,
} from '../types.ts'
import { decide } from './limiter.ts'
import { readJsonIfExists, SnapshotWriter } from './persist.ts'

interface WorkspaceUsage {
  workspace: UsageCounts
  keys: Record<string, UsageCounts>
  daily: Record<string, number>
}

interface Snapshot {
  version: 1
  workspaces: Workspace[]
  projects: Project[]
  environments: Environment[]
  keys: ApiKeyRecord[]
  // month → workspace id → counts
  usage: Record<string, Record<string, WorkspaceUsage>>
}

export interface MemoryStoreOptions {
  dataDir: string | null
  clock?: () => number
  usageFlushMs?: number
}

const emptyCounts = (): UsageCounts => ({ requests: 0, refused_rate: 0, refused_quota: 0 })

// The embedded store: state in memory; durable records written to DATA_DIR/store.json atomically on
// every change, usage counters every few seconds and at close.
export class MemoryStore implements Store {
  readonly kind = 'memory' as const
  #workspaces = new Map<string, Workspace>()
  #bootstrapClaimed = false
  #projects = new Map<string, Project>()
  #environments = new Map<string, Environment>()
  #keys = new Map<string, ApiKeyRecord>()
  #keysByHash = new Map<string, ApiKeyRecord>()
  #usage: Snapshot['usage'] = {}
  #tats = new Map<string, number>()
  #listeners = new Set<(event: StoreEvent) => void>()
  #clock: () => number
  #writer: SnapshotWriter | null
  #usageDirty = false
  #flushTimer: NodeJS.Timeout | undefined

  private constructor(options: MemoryStoreOptions) {
    this.#clock = options.clock ?? Date.now
    this.#writer = options.dataDir
      ? new SnapshotWriter(join(options.dataDir, 'store.json'), () => JSON.stringify(this.#snapshot()))
      : null
  }

  static async open(options: MemoryStoreOptions): Promise<MemoryStore> {
    const store = new MemoryStore(options)
    if (options.dataDir) {
      const snap = await readJsonIfExists<Snapshot>(join(options.dataDir, 'store.json'))
      if (snap) store.#load(snap)
      const every = options.usageFlushMs ?? 5_000
      store.#flushTimer = setInterval(() => void store.#flushUsage(), every)
      store.#flushTimer.unref()
    }
    return store
  }

  #load(snap: Snapshot): void {
    for (const w of snap.workspaces) this.#workspaces.set(w.id, w)
    for (const p of snap.projects) this.#projects.set(p.id, p)
    for (const e of snap.environments) this.#environments.set(e.id, e)
    for (const k of snap.keys) {
      this.#keys.set(k.id, k)
      this.#keysByHash.set(k.hash, k)
    }
    this.#usage = snap.usage ?? {}
  }

  #snapshot(): Snapshot {
    return {
      version: 1,
      workspaces: [...this.#workspaces.values()],
      projects: [...this.#projects.values()],
      environments: [...this.#environments.values()],
      keys: [...this.#keys.values()],
      usage: this.#usage,
    }
  }

  async #persist(): Promise<void> {
    this.#usageDirty = false
    await this.#writer?.write()
  }

  async #flushUsage(): Promise<void> {
    if (this.#usageDirty) await this.#persist().catch(() => {})
  }

  #emit(event: StoreEvent): void {
    for (const l of this.#listeners) l(event)
  }

  #now(): string {
    return new Date(this.#clock()).toISOString()
  }

  async ready(): Promise<boolean> {
    return true
  }

  async close(): Promise<void> {
    clearInterval(this.#flushTimer)
    if (this.#writer) await this.#persist()
    this.#listeners.clear()
  }

  // one process: every change is told to the listeners before it resolves
  invalidationLive(): boolean {
    return true
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  async createWorkspace(input: { name: string; plan: PlanName }): Promise<Workspace> {
    const ws: Workspace = {
      id: newId('ws'),
      name: input.name,
      plan: input.plan,
      overrides: {},
      created_at: this.#now(),
    }
    this.#workspaces.set(ws.id, ws)
    await this.#persist()
    return structuredClone(ws)
  }

  async getWorkspace(id: string): Promise<Workspace | undefined> {
    const ws = this.#workspaces.get(id)
    return ws && structuredClone(ws)
  }

  async updateWorkspace(
    id: string,
    patch: { plan?: PlanName; overrides?: PlanOverrides },
  ): Promise<Workspace | undefined> {
    const ws = this.#workspaces.get(id)
    if (!ws) return undefined
    if (patch.plan) ws.plan = patch.plan
    if (patch.overrides) ws.overrides = { ...ws.overrides, ...patch.overrides }
    await this.#persist()
    this.#emit({ type: 'workspace', id })
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

  async ensureProject(workspaceId: string, name: string): Promise<Project> {
    for (const p of this.#projects.values()) {
      if (p.workspace_id === workspaceId && p.name === name) return structuredClone(p)
    }
    const p: Project = { id: newId('prj'), workspace_id: workspaceId, name, created_at: this.#now() }
    this.#projects.set(p.id, p)
    await this.#persist()
    return structuredClone(p)
  }

  async ensureEnvironment(projectId: string, name: string, mode: KeyMode): Promise<Environment> {
    for (const e of this.#environments.values()) {
      if (e.project_id === projectId && e.name === name) return structuredClone(e)
    }
    const project = this.#projects.get(projectId)
    if (!project) throw new Error(`unknown project ${projectId}`)
    const e: Environment = {
      id: newId('env'),
      workspace_id: project.workspace_id,
      project_id: projectId,
      name,
      mode,
      created_at: this.#now(),
    }
    this.#environments.set(e.id, e)
    await this.#persist()
    return structuredClone(e)
  }

  async listProjects(workspaceId: string): Promise<Project[]> {
    return structuredClone([...this.#projects.values()].filter((p) => p.workspace_id === workspaceId))
  }

  async listEnvironments(projectId: string): Promise<Environment[]> {
    return structuredClone([...this.#environments.values()].filter((e) => e.project_id === projectId))
  }

  async createKey(input: NewKey): Promise<ApiKeyRecord> {
    const key: ApiKeyRecord = {
      ...input,
      id: newId('key'),
      revoked_at: null,
      rotated_to: null,
      created_at: this.#now(),
    }
    this.#keys.set(key.id, key)
    this.#keysByHash.set(key.hash, key)
    await this.#persist()
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
    await this.#persist()
    this.#emit({ type: 'key', hash: key.hash })
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
    const now = this.#clock()
    const usage = this.#usageFor(monthOf(now), req.workspaceId)
    const keyUsage = usage.keys[req.keyId] ?? emptyCounts()
    usage.keys[req.keyId] = keyUsage
    const keyTatId = `k:${req.keyId}`
    const wsTatId = `w:${req.workspaceId}`
    const { decision, keyTat, workspaceTat } = decide(
      req,
      now,
      { key: this.#tats.get(keyTatId), workspace: this.#tats.get(wsTatId) },
      { workspaceMonth: usage.workspace.requests, keyMonth: keyUsage.requests },
    )
    this.#usageDirty = true
    if (decision.allowed) {
      this.#tats.set(keyTatId, keyTat)
      this.#tats.set(wsTatId, workspaceTat)
      usage.workspace.requests++
      keyUsage.requests++
      const day = dayOf(now)
      usage.daily[day] = (usage.daily[day] ?? 0) + 1
      decision.charge = {
        workspaceId: req.workspaceId,
        keyId: req.keyId,
        month: monthOf(now),
        day: day.slice(8, 10),
      }
    } else {
      const field =
        decision.reason === 'quota' || decision.reason === 'key_quota' ? 'refused_quota' : 'refused_rate'
      usage.workspace[field]++
      keyUsage[field]++
    }
    return decision
  }

  async refund(charge: Charge): Promise<void> {
    const usage = this.#usage[charge.month]?.[charge.workspaceId]
    if (!usage) return
    const down = (n: number | undefined) => Math.max(0, (n ?? 0) - 1)
    usage.workspace.requests = down(usage.workspace.requests)
    const keyUsage = usage.keys[charge.keyId]
    if (keyUsage) keyUsage.requests = down(keyUsage.requests)
    const day = `${charge.month}-${charge.day}`
    if (usage.daily[day] !== undefined) usage.daily[day] = down(usage.daily[day])
    this.#usageDirty = true
  }

  async usage(workspaceId: string, month?: string): Promise<Usage> {
    const m = month ?? monthOf(this.#clock())
    const u = this.#usage[m]?.[workspaceId]
    return {
      month: m,
      workspace: u ? { ...u.workspace } : emptyCounts(),
      keys: u ? structuredClone(u.keys) : {},
      daily: u ? { ...u.daily } : {},
    }
  }
}
