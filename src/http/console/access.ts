import type { Role } from '../../accounts/store/types.ts'
import { AppError } from '../../errors.ts'
import type { ApiKeyRecord, Environment, Project, Workspace } from '../../store/types.ts'
import type { ConsoleDeps } from './context.ts'

// Ownership is checked on every id a request names, top-down, and anything not the person's own
// answers exactly like something that does not exist: 404, same message shape, no hint either way.
function notFound(kind: string, id: string): AppError {
  return new AppError('ERR_NOT_FOUND', `No ${kind} ${id}.`, { id })
}

export async function memberWorkspaces(
  deps: ConsoleDeps,
  userId: string,
): Promise<{ workspace: Workspace; role: Role }[]> {
  const memberships = await deps.accounts.listMemberships(userId)
  const found = await Promise.all(
    memberships.map(async (m) => ({
      workspace: await deps.store.getWorkspace(m.workspace_id),
      role: m.role,
    })),
  )
  return found.filter((f): f is { workspace: Workspace; role: Role } => f.workspace !== undefined)
}

export async function ownedWorkspace(
  deps: ConsoleDeps,
  userId: string,
  workspaceId: string,
): Promise<{ workspace: Workspace; role: Role }> {
  const membership = await deps.accounts.getMembership(userId, workspaceId)
  const workspace = membership && (await deps.store.getWorkspace(workspaceId))
  if (!membership || !workspace) throw notFound('workspace', workspaceId)
  return { workspace, role: membership.role }
}

export async function ownedProject(
  deps: ConsoleDeps,
  workspace: Workspace,
  projectId: string,
): Promise<Project> {
  const project = (await deps.store.listProjects(workspace.id)).find((p) => p.id === projectId)
  if (!project) throw notFound('project', projectId)
  return project
}

export async function ownedEnvironment(
  deps: ConsoleDeps,
  workspace: Workspace,
  environmentId: string,
): Promise<{ project: Project; environment: Environment }> {
  for (const project of await deps.store.listProjects(workspace.id)) {
    const environment = (await deps.store.listEnvironments(project.id)).find((e) => e.id === environmentId)
    if (environment) return { project, environment }
  }
  throw notFound('environment', environmentId)
}

export async function ownedKey(
  deps: ConsoleDeps,
  workspace: Workspace,
  keyId: string,
): Promise<ApiKeyRecord> {
  const key = await deps.store.getKey(keyId)
  if (!key || key.workspace_id !== workspace.id) throw notFound('key', keyId)
  return key
}

export async function ownedProjectEnvironment(
  deps: ConsoleDeps,
  project: Project,
  environmentId: string,
): Promise<Environment> {
  const environment = (await deps.store.listEnvironments(project.id)).find((e) => e.id === environmentId)
  if (!environment) throw notFound('environment', environmentId)
  return environment
}
