import type { Family } from '../limits/families.ts'
import { effectiveLimits, type PlanTable } from '../limits/plans.ts'
import type { ApiKeyRecord, Store } from '../store/types.ts'
import { generateKey, hashKey, type KeyMode, keyPrefix } from './format.ts'

export interface CreateKeyInput {
  workspace_id: string
  project?: string
  environment?: string
  mode?: KeyMode
  name?: string | null
  families?: Family[] | null
  expires_at?: string | null
  allowed_cidrs?: string[] | null
  monthly_quota?: number | null
}

export type KeyOutcome =
  | { ok: true; record: ApiKeyRecord; key: string }
  | { ok: false; reason: 'workspace_not_found' | 'mode_mismatch' | 'key_not_found' | 'key_revoked' }

// The only place where a plaintext key exists: generated, hashed for the store, returned once. With
// the plan table, the workspace's caps on keys, projects and environments hold (409 ERR_CONFLICT).
export async function createApiKey(
  store: Store,
  input: CreateKeyInput,
  plans?: PlanTable,
): Promise<KeyOutcome> {
  const workspace = await store.getWorkspace(input.workspace_id)
  if (!workspace) return { ok: false, reason: 'workspace_not_found' }
  const caps = plans && effectiveLimits(plans, workspace.plan, workspace.overrides)
  const project = await store.ensureProject(workspace.id, input.project ?? 'default', caps?.max_projects)
  const envName = input.environment ?? 'production'
  const existing = (await store.listEnvironments(project.id)).find((e) => e.name === envName)
  const mode = input.mode ?? existing?.mode ?? (envName === 'production' ? 'live' : 'test')
  if (existing && existing.mode !== mode) return { ok: false, reason: 'mode_mismatch' }
  const environment =
    existing ?? (await store.ensureEnvironment(project.id, envName, mode, caps?.max_environments))
  const key = generateKey(environment.mode)
  const record = await store.createKey(
    {
      workspace_id: workspace.id,
      project_id: project.id,
      environment_id: environment.id,
      mode: environment.mode,
      hash: hashKey(key),
      prefix: keyPrefix(key),
      name: input.name ?? null,
      families: input.families?.length ? [...new Set(input.families)] : null,
      allowed_cidrs: input.allowed_cidrs?.length ? input.allowed_cidrs : null,
      expires_at: input.expires_at ?? null,
      monthly_quota: input.monthly_quota ?? null,
    },
    caps?.max_keys,
  )
  return { ok: true, record, key }
}

export async function revokeApiKey(
  store: Store,
  id: string,
  now: number,
): Promise<KeyOutcome | ApiKeyRecord> {
  const record = await store.getKey(id)
  if (!record) return { ok: false, reason: 'key_not_found' }
  if (record.revoked_at) return record
  return (await store.updateKey(id, { revoked_at: new Date(now).toISOString() }))!
}

// A new key with the same scope; the old one keeps working for the grace period (0 = revoked now).
export async function rotateApiKey(
  store: Store,
  id: string,
  graceSeconds: number,
  now: number,
  plans?: PlanTable,
): Promise<KeyOutcome & { old?: ApiKeyRecord }> {
  const old = await store.getKey(id)
  if (!old) return { ok: false, reason: 'key_not_found' }
  if (old.revoked_at) return { ok: false, reason: 'key_revoked' }
  const environment = (await store.listEnvironments(old.project_id)).find((e) => e.id === old.environment_id)
  const project = (await store.listProjects(old.workspace_id)).find((p) => p.id === old.project_id)
  // the replacement counts against max_keys like any new key, until the old one is revoked or expires
  const created = await createApiKey(
    store,
    {
      workspace_id: old.workspace_id,
      project: project?.name,
      environment: environment?.name,
      mode: old.mode,
      name: old.name,
      families: old.families,
      allowed_cidrs: old.allowed_cidrs,
      expires_at: old.expires_at,
      monthly_quota: old.monthly_quota,
    },
    plans,
  )
  if (!created.ok) return created
  const graceEnd = new Date(now + graceSeconds * 1000).toISOString()
  const patch =
    graceSeconds === 0
      ? { revoked_at: new Date(now).toISOString(), rotated_to: created.record.id }
      : {
          expires_at: old.expires_at && old.expires_at < graceEnd ? old.expires_at : graceEnd,
          rotated_to: created.record.id,
        }
  const updated = await store.updateKey(id, patch)
  return { ...created, old: updated }
}

// What may be shown about a key after creation: never the hash.
export function publicKey(record: ApiKeyRecord): Omit<ApiKeyRecord, 'hash'> {
  const { hash: _hash, ...rest } = record
  return rest
}
