import type { Role } from '../../accounts/store/types.ts'
import { keyStatus } from '../../keys/status.ts'
import { monthOf } from '../../limits/month.ts'
import { effectiveLimits, type PlanTable } from '../../limits/plans.ts'
import { newestFirst } from '../../store/page.ts'
import type { ApiKeyRecord, Environment, Project, Usage, Workspace } from '../../store/types.ts'
import type { ConsoleDeps } from './context.ts'
import { endpointsView } from './endpoint-view.ts'

// The shapes the console API answers and its pages render: one function each, used by both.

export function workspaceView(plans: PlanTable, workspace: Workspace, role: Role) {
  return {
    id: workspace.id,
    name: workspace.name,
    plan: workspace.plan,
    role,
    limits: effectiveLimits(plans, workspace.plan, workspace.overrides),
    created_at: workspace.created_at,
  }
}
export type WorkspaceView = ReturnType<typeof workspaceView>

export function environmentView(e: Environment) {
  return { id: e.id, project_id: e.project_id, name: e.name, mode: e.mode, created_at: e.created_at }
}

export async function projectViews(deps: ConsoleDeps, workspaceId: string) {
  const projects = await deps.store.listProjects(workspaceId)
  return Promise.all(
    projects.map(async (p: Project) => ({
      id: p.id,
      name: p.name,
      created_at: p.created_at,
      environments: (await deps.store.listEnvironments(p.id)).map(environmentView),
    })),
  )
}
export type ProjectView = Awaited<ReturnType<typeof projectViews>>[number]

// Keys as the console shows them, for the records it was handed (one page of the list, or one key), in
// their order: what a row names beside its record (the names of its project and environment, the key at
// the other end of a rotation, when it was last used) is read for these keys only, so a page costs the
// same whatever else the workspace holds.
export async function keyViews(deps: ConsoleDeps, workspaceId: string, records: ApiKeyRecord[]) {
  const { store } = deps
  const ids = records.map((k) => k.id)
  const projectIds = [...new Set(records.map((k) => k.project_id))]
  const [rotatedFrom, projects, environments, lastUsed] = await Promise.all([
    store.rotatedFrom(workspaceId, ids),
    records.length === 0 ? [] : store.listProjects(workspaceId),
    Promise.all(projectIds.map((id) => store.listEnvironments(id))),
    deps.activity.lastUsed(ids),
  ])
  // a rotation links two keys: each row names the other by prefix, so a replacement is recognisable
  const known = new Map(records.map((k) => [k.id, k]))
  const others = [...records.map((k) => k.rotated_to), ...rotatedFrom.values()]
  const missing = [...new Set(others)].filter((id): id is string => id !== null && !known.has(id))
  if (missing.length > 0) for (const k of await store.getKeys(workspaceId, missing)) known.set(k.id, k)
  const link = (k: ApiKeyRecord | undefined) => (k ? { id: k.id, prefix: k.prefix } : null)
  const projectNames = new Map(projects.map((p) => [p.id, p.name]))
  const environmentNames = new Map(environments.flat().map((e) => [e.id, e.name]))
  const now = deps.clock()
  return records.map((k) => {
    const used = lastUsed.get(k.id)
    const from = known.get(rotatedFrom.get(k.id) ?? '')
    return {
      id: k.id,
      name: k.name,
      prefix: k.prefix,
      mode: k.mode,
      status: keyStatus(k, now),
      project: { id: k.project_id, name: projectNames.get(k.project_id) ?? '' },
      environment: { id: k.environment_id, name: environmentNames.get(k.environment_id) ?? '' },
      families: k.families,
      allowed_cidrs: k.allowed_cidrs,
      expires_at: k.expires_at,
      monthly_quota: k.monthly_quota,
      created_at: k.created_at,
      last_used_at: used === undefined ? null : new Date(used).toISOString(),
      revoked_at: k.revoked_at,
      rotated_to: k.rotated_to,
      replaced_by: link(k.rotated_to ? known.get(k.rotated_to) : undefined),
      // the index is written before the rotation's patch: it counts once the old key says so too
      rotated_from: link(from?.rotated_to === k.id ? from : undefined),
    }
  })
}
export type KeyView = Awaited<ReturnType<typeof keyViews>>[number]

function daysOf(month: string): string[] {
  const [y, m] = month.split('-').map(Number) as [number, number]
  const count = new Date(Date.UTC(y, m, 0)).getUTCDate()
  return Array.from({ length: count }, (_, i) => `${month}-${String(i + 1).padStart(2, '0')}`)
}

// What keys deleted since (with their environment, project) were counted this month, together: the month's
// totals stay whole after a delete. null when there were none.
function deletedKeys(usage: Usage, keys: KeyView[]) {
  const shown = new Set(keys.map((k) => k.id))
  let sum: { requests: number; refused_rate: number; refused_quota: number } | null = null
  for (const [id, counts] of Object.entries(usage.keys)) {
    if (shown.has(id)) continue
    sum ??= { requests: 0, refused_rate: 0, refused_quota: 0 }
    sum.requests += counts.requests
    sum.refused_rate += counts.refused_rate
    sum.refused_quota += counts.refused_quota
  }
  return sum
}

export async function usageView(deps: ConsoleDeps, workspace: Workspace, month?: string) {
  const m = month ?? monthOf(deps.clock())
  const [usage, keys, jobStorage, endpoints]: [
    Usage,
    KeyView[],
    number | null,
    Awaited<ReturnType<typeof endpointsView>>,
  ] = await Promise.all([
    deps.store.usage(workspace.id, m),
    // a month's report names every key of the workspace (not a list page: no pagination)
    deps.store.listKeys(workspace.id).then((all) => keyViews(deps, workspace.id, all.sort(newestFirst))),
    // now, not the month's: what the workspace's jobs keep (null while the job store cannot be read)
    deps.jobs.storedBytes(workspace.id).catch(() => null),
    deps.endpointUsage.read(workspace.id, m).then(endpointsView),
  ])
  const limits = effectiveLimits(deps.plans, workspace.plan, workspace.overrides)
  const zero = { requests: 0, refused_rate: 0, refused_quota: 0 }
  return {
    month: usage.month,
    plan: workspace.plan,
    limits,
    workspace: { ...usage.workspace, monthly_quota: limits.monthly_quota },
    // test-mode keys' traffic, limited apart from live traffic (docs/api.md, "Test mode")
    test: { ...usage.test, monthly_quota: limits.monthly_quota },
    keys: keys.map((k) => ({
      id: k.id,
      name: k.name,
      prefix: k.prefix,
      status: k.status,
      environment: k.environment.name,
      ...(usage.keys[k.id] ?? zero),
    })),
    deleted_keys: deletedKeys(usage, keys),
    daily: daysOf(usage.month).map((date) => ({ date, requests: usage.daily[date] ?? 0 })),
    job_storage_bytes: jobStorage,
    ...endpoints,
  }
}
export type UsageView = Awaited<ReturnType<typeof usageView>>
