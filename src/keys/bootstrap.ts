import type { PlanName } from '../limits/plans.ts'
import type { Store } from '../store/types.ts'
import { createApiKey } from './service.ts'

// First start on an empty store: a default workspace, project and live environment, and one key,
// returned so the caller can print it once.
export async function bootstrapIfEmpty(
  store: Store,
  plan: PlanName,
): Promise<{ workspaceId: string; key: string } | undefined> {
  if ((await store.listWorkspaces()).length > 0) return undefined
  if (!(await store.claimBootstrap())) return undefined
  const ws = await store.createWorkspace({ name: 'Default workspace', plan })
  const created = await createApiKey(store, {
    workspace_id: ws.id,
    project: 'default',
    environment: 'production',
    mode: 'live',
    name: 'first key',
  })
  if (!created.ok) throw new Error(`bootstrap failed: ${created.reason}`)
  return { workspaceId: ws.id, key: created.key }
}
