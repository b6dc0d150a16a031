import { AppError } from '../../errors.ts'
import { isLiveKey } from '../../limits/tenant-caps.ts'
import type { ApiKeyRecord, DeleteOutcome, Workspace } from '../../store/types.ts'
import type { ConsoleDeps } from './context.ts'

// live keys named in a refusal (the count says how many there are in all)
const NAMED_KEYS = 10

// A delete never revokes a key on its own: a key in use would stop working in production with no warning
// but a delete confirmation. So a workspace, project or environment with live keys (neither revoked nor
// expired) is refused, naming them, until they are revoked (each with its own confirmation).
function liveKeysRefusal(what: string, live: ApiKeyRecord[]): AppError {
  const shown = live.slice(0, NAMED_KEYS).map((k) => `${k.prefix}…${k.name ? ` (${k.name})` : ''}`)
  const more = live.length > NAMED_KEYS ? ` and ${live.length - NAMED_KEYS} more` : ''
  const count = live.length === 1 ? '1 live key' : `${live.length} live keys`
  return new AppError(
    'ERR_CONFLICT',
    `This ${what} has ${count}, ${shown.join(', ')}${more}: revoke ${live.length === 1 ? 'it' : 'them'} first; deleting never revokes keys.`,
    {
      reason: 'live_keys',
      count: live.length,
      live_keys: live
        .slice(0, NAMED_KEYS)
        .map((k) => ({ id: k.id, prefix: k.prefix, name: k.name, environment_id: k.environment_id })),
    },
  )
}

// Jobs belong to the workspace, not to a key: one queued or running is work someone still waits for.
async function refuseJobsInFlight(deps: Pick<ConsoleDeps, 'jobs'>, workspace: Workspace): Promise<void> {
  for (const status of ['queued', 'active'] as const) {
    const page = await deps.jobs.list(workspace.id, { limit: 1, status })
    if (page?.data.length) {
      throw new AppError(
        'ERR_CONFLICT',
        `Workspace ${workspace.name} has jobs queued or running. Let them finish, or cancel them (DELETE /v1/jobs/{id}), first.`,
        { reason: 'jobs_in_flight', workspace_id: workspace.id },
      )
    }
  }
}

// What the store answered, as the console answers it; the deleted keys' "last used" times go too.
export async function settleDelete(
  deps: Pick<ConsoleDeps, 'activity'>,
  what: string,
  outcome: DeleteOutcome,
  notFound: () => AppError,
): Promise<void> {
  if (!outcome) throw notFound()
  if (!outcome.deleted) throw liveKeysRefusal(what, outcome.live)
  await deps.activity.forget(outcome.keys)
}

// A workspace, deleted for the person who owns it: refused while jobs are in flight or keys are live;
// then everything it holds goes, and with it the owner's membership.
export async function deleteOwnedWorkspace(
  deps: Pick<ConsoleDeps, 'store' | 'accounts' | 'activity' | 'jobs'>,
  userId: string,
  workspace: Workspace,
): Promise<void> {
  await refuseJobsInFlight(deps, workspace)
  const outcome = await deps.store.deleteWorkspace(workspace.id)
  await settleDelete(deps, `workspace (${workspace.name})`, outcome, () => notFoundWorkspace(workspace.id))
  await deps.accounts.removeMembership(userId, workspace.id)
}

function notFoundWorkspace(id: string): AppError {
  return new AppError('ERR_NOT_FOUND', `No workspace ${id}.`, { id })
}

// Every refusal a workspace's delete would meet now, without deleting anything (an account is deleted only
// when all its workspaces can be).
export async function workspaceBlockers(
  deps: Pick<ConsoleDeps, 'store' | 'jobs' | 'clock'>,
  workspace: Workspace,
): Promise<AppError | undefined> {
  try {
    await refuseJobsInFlight(deps, workspace)
  } catch (err) {
    return err as AppError
  }
  const now = new Date(deps.clock()).toISOString()
  const live = (await deps.store.listKeys(workspace.id)).filter((k) => isLiveKey(k, now))
  return live.length > 0 ? liveKeysRefusal(`workspace (${workspace.name})`, live) : undefined
}
