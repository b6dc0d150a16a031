import type { PlanName } from '../limits/plans.ts'
import type { Store } from '../store/types.ts'
import { createApiKey } from './service.ts'

// First start on an empty store: a default workspace, project and live environment, and one key,
// returned so the caller can print it once. `beforeKey` runs once the workspace exists and before the key
// is made (the gateway notes there that a key is about to exist and is not shown yet).
export async function bootstrapIfEmpty(
  store: Store,
  plan: PlanName,
  beforeKey?: (workspaceId: string) => Promise<void>,
): Promise<{ workspaceId: string; key: string } | undefined> {
  if ((await store.listWorkspaces()).length > 0) return undefined
  if (!(await store.claimBootstrap())) return undefined
  const ws = await store.createWorkspace({ name: 'Default workspace', plan })
  await beforeKey?.(ws.id)
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
