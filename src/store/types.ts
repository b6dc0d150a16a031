import type { Charge, ConsumeRequest, LimitDecision } from '../limits/decision.ts'
import type { Family } from '../limits/families.ts'
import type { PlanName, PlanOverrides } from '../limits/plans.ts'
import type { EndpointBatch, EndpointCounts } from './endpoint-usage.ts'

// A key's mode, and so its environment's: live keys for production traffic, test keys for the rest.
export type KeyMode = 'live' | 'test'

export interface Workspace {
  id: string
  name: string
  plan: PlanName
  overrides: PlanOverrides
  created_at: string
}

export interface Project {
  id: string
  workspace_id: string
  name: string
  created_at: string
}

export interface Environment {
  id: string
  workspace_id: string
  project_id: string
  name: string
  mode: KeyMode
  created_at: string
}

export interface ApiKeyRecord {
  id: string
  workspace_id: string
  project_id: string
  environment_id: string
  mode: KeyMode
  hash: string
  prefix: string
  name: string | null
  families: Family[] | null
  allowed_cidrs: string[] | null
  expires_at: string | null
  monthly_quota: number | null
  revoked_at: string | null
  rotated_to: string | null
  created_at: string
}

export interface NewWorkspace {
  name: string
  plan: PlanName
  id?: string | undefined
  created_at?: string | undefined
}

export interface KeyLookup {
  key: ApiKeyRecord
  workspace: Workspace
}

// The limiter's vocabulary (what one request asks of it, what it decides) is src/limits/decision.ts's;
// the store implements the decision.
export type {
  Charge,
  ConsumeRequest,
  LimitDecision,
  RefusalReason,
} from '../limits/decision.ts'

export interface UsageCounts {
  requests: number
  refused_rate: number
  refused_quota: number
}

export interface Usage {
  month: string
  // live traffic's counts, which the monthly quota is charged with
  workspace: UsageCounts
  // test-mode keys' counts, kept apart (docs/api.md, "Test mode")
  test: UsageCounts
  // each key's own counts, whatever its mode
  keys: Record<string, UsageCounts>
  // admitted live requests per UTC day
  daily: Record<string, number>
}

// What a delete did: deleted, with the ids of the keys that went with it; refused because keys in it are
// live (not revoked, not expired), named, and nothing was deleted; undefined: nothing to delete.
export type DeleteOutcome =
  | { deleted: true; keys: string[] }
  | { deleted: false; live: ApiKeyRecord[] }
  | undefined

// 'reset': events may have been missed (the invalidation channel was down), so drop every cached entry.
export type StoreEvent = { type: 'key'; hash: string } | { type: 'workspace'; id: string } | { type: 'reset' }

export interface NewKey {
  workspace_id: string
  project_id: string
  environment_id: string
  mode: KeyMode
  hash: string
  prefix: string
  name: string | null
  families: Family[] | null
  allowed_cidrs: string[] | null
  expires_at: string | null
  monthly_quota: number | null
}

// A page of a list, newest first (Stripe's shape): `startingAfter` is the id of the last item of the
// previous page. A cursor the list does not hold gives `undefined` (the caller answers 400).
export interface PageRequest {
  limit: number
  startingAfter?: string | undefined
}

export interface Page<T> {
  data: T[]
  has_more: boolean
}

// Which Idempotency-Key record: `scope` names who the key belongs to (a workspace, a console person, the
// operator) and `id` the key within it, both hashes made by the caller (src/lib/idempotency-seal.ts).
export interface IdempotencyRef {
  scope: string
  id: string
}

// A response kept under an Idempotency-Key (src/http/hooks/idempotency.ts), opaque to the store.
export interface IdempotencyRecord {
  // hash of method, path and body of the first request
  fingerprint: string
  // 'running' while the first request is in flight; then its stored (sealed) response
  state: 'running' | 'done'
  response?: string
}

// What one kept record weighs against its scope's bound (IDEMPOTENCY_MAX_SCOPE_BYTES), the same on both
// stores: the bytes of its id, its fingerprint and its (sealed) answer.
export function keptBytes(ref: IdempotencyRef, record: IdempotencyRecord): number {
  return (
    Buffer.byteLength(ref.id) +
    Buffer.byteLength(record.fingerprint) +
    Buffer.byteLength(record.response ?? '')
  )
}

export interface Store {
  readonly kind: 'memory' | 'redis'
  ready(): Promise<boolean>
  close(): Promise<void>
  // Invalidation events for in-process caches (revocation, rotation, plan changes).
  subscribe(listener: (event: StoreEvent) => void): () => void
  // True while every change any gateway makes is known to reach subscribe()'s listeners promptly; false
  // while the invalidation channel is down or not yet confirmed (caches must then not be trusted long).
  invalidationLive(): boolean

  // `id` and `created_at` given by a caller that must name the workspace before it exists (the console
  // takes an owner's place for it first, under CONSOLE_MAX_WORKSPACES); else new ones
  createWorkspace(input: NewWorkspace): Promise<Workspace>
  getWorkspace(id: string): Promise<Workspace | undefined>
  updateWorkspace(
    id: string,
    patch: { name?: string; plan?: PlanName; overrides?: PlanOverrides },
  ): Promise<Workspace | undefined>
  listWorkspaces(): Promise<Workspace[]>
  // First start: true for exactly one caller ever, so gateways booting together on an empty store create
  // one default workspace between them, not one each.
  claimBootstrap(): Promise<boolean>

  // Get-or-create by name, so "project: default, environment: production" just works. With `max`, a
  // create that would make the workspace hold more than max projects (environments, across its projects)
  // throws 409 ERR_CONFLICT {limit, max} instead; the check and the create are one atomic step.
  ensureProject(workspaceId: string, name: string, max?: number): Promise<Project>
  ensureEnvironment(projectId: string, name: string, mode: KeyMode, max?: number): Promise<Environment>
  listProjects(workspaceId: string): Promise<Project[]>
  listEnvironments(projectId: string): Promise<Environment[]>
  // Renames, checked and changed in one step: 'name_taken' when another project of the workspace
  // (environment of the project) has the name; undefined when there is no such project (environment).
  renameProject(
    workspaceId: string,
    projectId: string,
    name: string,
  ): Promise<Project | 'name_taken' | undefined>
  renameEnvironment(
    projectId: string,
    environmentId: string,
    name: string,
  ): Promise<Environment | 'name_taken' | undefined>
  // Deletes an environment, a project (its environments with it) or a workspace (everything it holds,
  // usage included) and the keys in it, unless one of those keys is live (not revoked, not expired):
  // then nothing is deleted and the live keys are answered. The check and the delete are one step (Lua on
  // Redis, one event-loop turn in memory), so a key created meanwhile is either seen or not deleted.
  deleteEnvironment(projectId: string, environmentId: string): Promise<DeleteOutcome>
  deleteProject(workspaceId: string, projectId: string): Promise<DeleteOutcome>
  deleteWorkspace(workspaceId: string): Promise<DeleteOutcome>

  // With `max`: throws 409 ERR_CONFLICT {limit: 'max_keys', max} when the workspace already has max live
  // (not revoked, not expired) keys, checked and created atomically.
  createKey(input: NewKey, max?: number): Promise<ApiKeyRecord>
  getKey(id: string): Promise<ApiKeyRecord | undefined>
  lookupKey(hash: string): Promise<KeyLookup | undefined>
  updateKey(
    id: string,
    patch: Partial<Pick<ApiKeyRecord, 'revoked_at' | 'expires_at' | 'rotated_to'>>,
  ): Promise<ApiKeyRecord | undefined>
  listKeys(workspaceId: string): Promise<ApiKeyRecord[]>

  consume(request: ConsumeRequest): Promise<LimitDecision>
  // The same decision as consume(), synchronously: only a store that decides in memory (the embedded
  // one) has it, and the request path then costs no promise for its limits.
  consumeNow?(request: ConsumeRequest): LimitDecision
  // Gives back what consume() charged for a request the gateway itself then failed (5xx): the monthly
  // counts and the day's count, never below zero. Rate tokens are not given back.
  refund(charge: Charge): Promise<void>
  usage(workspaceId: string, month?: string): Promise<Usage>
  // Per-endpoint answers and latencies (src/store/endpoint-usage.ts): a batch of counts to add, by
  // workspace then endpoint, for one month; and one workspace-month's totals.
  addEndpointUsage(month: string, batch: EndpointBatch): Promise<void>
  endpointUsage(workspaceId: string, month: string): Promise<Record<string, EndpointCounts>>

  // Pages of the lists, newest first, from ordered structures (a ZSET by creation time on Redis).
  pageWorkspaces(page: PageRequest): Promise<Page<Workspace> | undefined>
  pageKeys(workspaceId: string, page: PageRequest): Promise<Page<ApiKeyRecord> | undefined>
  // What a page of keys shows beside its own records, read for the page's ids only (one pipelined round
  // trip on Redis): the records of these keys of the workspace (unknown or foreign ids left out), and, for
  // each of these ids a rotation issued, the id of the key it replaced.
  getKeys(workspaceId: string, ids: readonly string[]): Promise<ApiKeyRecord[]>
  rotatedFrom(workspaceId: string, ids: readonly string[]): Promise<Map<string, string>>

  // Idempotency-Key records. begin() takes the key for a first request atomically (answers undefined) or
  // answers what is there: another request still running, or the stored response. finish() stores the
  // response for ttlSeconds, and drops the scope's oldest kept responses while the scope keeps more than
  // maxScopeBytes (checked and dropped atomically: Lua on Redis); release() drops the key (the first request
  // did not get as far as running the create, or failed in a way a retry should not see: 5xx).
  idempotencyBegin(
    ref: IdempotencyRef,
    fingerprint: string,
    lockMs: number,
  ): Promise<IdempotencyRecord | undefined>
  idempotencyFinish(
    ref: IdempotencyRef,
    record: IdempotencyRecord,
    ttlSeconds: number,
    maxScopeBytes: number,
  ): Promise<void>
  idempotencyRelease(ref: IdempotencyRef): Promise<void>
}
