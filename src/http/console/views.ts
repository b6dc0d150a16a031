import type { Role } from '../../accounts/store/types.ts'
import { monthOf } from '../../limits/month.ts'
import { effectiveLimits, type PlanTable } from '../../limits/plans.ts'
import type { ApiKeyRecord, Environment, Project, Usage, Workspace } from '../../store/types.ts'
import type { ConsoleDeps } from './context.ts'

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

export type KeyStatus = 'active' | 'rotated' | 'expired' | 'revoked'

export function keyStatus(key: ApiKeyRecord, now: number): KeyStatus {
  if (key.revoked_at && Date.parse(key.revoked_at) <= now) return 'revoked'
  if (key.expires_at && Date.parse(key.expires_at) <= now) return 'expired'
  return key.rotated_to ? 'rotated' : 'active'
}

// Keys newest first, with the names of their project and environment and when they were last used.
export async function keyViews(deps: ConsoleDeps, workspaceId: string, records?: ApiKeyRecord[]) {
  const all = await deps.store.listKeys(workspaceId)
  const keys = records ?? all
  // a rotation links two keys: each row names the other by prefix, so a replacement is recognisable
  const byId = new Map(all.map((k) => [k.id, k]))
  const rotatedFrom = new Map(all.filter((k) => k.rotated_to).map((k) => [k.rotated_to!, k]))
  const link = (k: ApiKeyRecord | undefined) => (k ? { id: k.id, prefix: k.prefix } : null)
  const projects = await projectViews(deps, workspaceId)
  const lastUsed = await deps.activity.lastUsed(keys.map((k) => k.id))
  const now = deps.clock()
  return keys
    .map((k) => {
      const project = projects.find((p) => p.id === k.project_id)
      const environment = project?.environments.find((e) => e.id === k.environment_id)
      const used = lastUsed.get(k.id)
      return {
        id: k.id,
        name: k.name,
        prefix: k.prefix,
        mode: k.mode,
        status: keyStatus(k, now),
        project: { id: k.project_id, name: project?.name ?? '' },
        environment: { id: k.environment_id, name: environment?.name ?? '' },
        families: k.families,
        allowed_cidrs: k.allowed_cidrs,
        expires_at: k.expires_at,
        monthly_quota: k.monthly_quota,
        created_at: k.created_at,
        last_used_at: used === undefined ? null : new Date(used).toISOString(),
        revoked_at: k.revoked_at,
        rotated_to: k.rotated_to,
        replaced_by: link(k.rotated_to ? byId.get(k.rotated_to) : undefined),
        rotated_from: link(rotatedFrom.get(k.id)),
      }
    })
    .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0))
}
export type KeyView = Awaited<ReturnType<typeof keyViews>>[number]

function daysOf(month: string): string[] {
  const [y, m] = month.split('-').map(Number) as [number, number]
  const count = new Date(Date.UTC(y, m, 0)).getUTCDate()
  return Array.from({ length: count }, (_, i) => `${month}-${String(i + 1).padStart(2, '0')}`)
}

export async function usageView(deps: ConsoleDeps, workspace: Workspace, month?: string) {
  const m = month ?? monthOf(deps.clock())
  const [usage, keys]: [Usage, KeyView[]] = await Promise.all([
    deps.store.usage(workspace.id, m),
    keyViews(deps, workspace.id),
  ])
  const limits = effectiveLimits(deps.plans, workspace.plan, workspace.overrides)
  const zero = { requests: 0, refused_rate: 0, refused_quota: 0 }
  return {
    month: usage.month,
    plan: workspace.plan,
    limits,
    workspace: { ...usage.workspace, monthly_quota: limits.monthly_quota },
    keys: keys.map((k) => ({
      id: k.id,
      name: k.name,
      prefix: k.prefix,
      status: k.status,
      environment: k.environment.name,
      ...(usage.keys[k.id] ?? zero),
    })),
    daily: daysOf(usage.month).map((date) => ({ date, requests: usage.daily[date] ?? 0 })),
  }
}
export type UsageView = Awaited<ReturnType<typeof usageView>>
