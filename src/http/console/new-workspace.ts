import type { Workspace } from '../../store/types.ts'
import type { ConsoleDeps } from './context.ts'

// A workspace created in the console starts as the first-start one does, with a project and a live
// environment, so a person's first key is one form away rather than three.
export const DEFAULT_PROJECT = 'default'
export const DEFAULT_ENVIRONMENT = 'production'

export async function createConsoleWorkspace(
  deps: Pick<ConsoleDeps, 'store' | 'defaultPlan'>,
  name: string,
  // a pre-chosen id and creation time (the owner's place is taken under it first, atomically)
  chosen: { id?: string; created_at?: string } = {},
): Promise<Workspace> {
  const workspace = await deps.store.createWorkspace({ name, plan: deps.defaultPlan, ...chosen })
  const project = await deps.store.ensureProject(workspace.id, DEFAULT_PROJECT)
  await deps.store.ensureEnvironment(project.id, DEFAULT_ENVIRONMENT, 'live')
  return workspace
}
