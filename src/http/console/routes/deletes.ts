import type { FastifyInstance } from 'fastify'
import { AppError } from '../../../errors.ts'
import { defineRoute } from '../../route/define-route.ts'
import { ownedProject, ownedProjectEnvironment, ownedWorkspace } from '../access.ts'
import type { ConsoleDeps } from '../context.ts'
import { deleteOwnedWorkspace, settleDelete } from '../deletion.ts'
import { deletedSchema, environmentParams, projectParams, workspaceParams } from './schemas.ts'

const tags = ['Console']

const REFUSED =
  'Refused with 409 ERR_CONFLICT {reason: "live_keys", count, live_keys: [{id, prefix, name, environment_id}]} ' +
  'while a key in it is live (neither revoked nor expired): deleting never revokes keys, so revoke them first.'

// Deletes (docs/decisions.md, "Console: rename and delete"): what goes, goes with the keys in it, which must
// be revoked or expired first; the check and the delete are one step in the store.
export async function deleteRoutes(app: FastifyInstance, { deps }: { deps: ConsoleDeps }): Promise<void> {
  const { store } = deps
  const gone = (kind: string, id: string) => () => new AppError('ERR_NOT_FOUND', `No ${kind} ${id}.`, { id })

  defineRoute(app, {
    method: 'DELETE',
    url: '/workspaces/:workspace_id',
    security: 'sessionCookie',
    operationId: 'consoleDeleteWorkspace',
    summary: 'Delete a workspace and everything in it',
    description:
      'Its projects, environments, revoked and expired keys, and usage go, for good. ' +
      REFUSED +
      ' Also refused, 409 ERR_CONFLICT {reason: "jobs_in_flight"}, while it has jobs queued or running. ' +
      'A workspace that is not yours is 404 ERR_NOT_FOUND.',
    tags,
    params: workspaceParams,
    response: deletedSchema,
    errors: ['ERR_UNAUTHORIZED', 'ERR_CSRF', 'ERR_NOT_FOUND', 'ERR_CONFLICT'],
    handler: async ({ params, request }) => {
      const userId = request.consoleAuth!.user.id
      const { workspace } = await ownedWorkspace(deps, userId, params.workspace_id)
      await deleteOwnedWorkspace(deps, userId, workspace)
      return { id: workspace.id, deleted: true as const }
    },
  })

  defineRoute(app, {
    method: 'DELETE',
    url: '/workspaces/:workspace_id/projects/:project_id',
    security: 'sessionCookie',
    operationId: 'consoleDeleteProject',
    summary: 'Delete a project with its environments',
    description: `Its environments and their revoked and expired keys go too; the month's usage keeps their counts. ${REFUSED}`,
    tags,
    params: projectParams,
    response: deletedSchema,
    errors: ['ERR_UNAUTHORIZED', 'ERR_CSRF', 'ERR_NOT_FOUND', 'ERR_CONFLICT'],
    handler: async ({ params, request }) => {
      const { workspace } = await ownedWorkspace(deps, request.consoleAuth!.user.id, params.workspace_id)
      const project = await ownedProject(deps, workspace, params.project_id)
      const outcome = await store.deleteProject(workspace.id, project.id)
      await settleDelete(deps, `project (${project.name})`, outcome, gone('project', project.id))
      return { id: project.id, deleted: true as const }
    },
  })

  defineRoute(app, {
    method: 'DELETE',
    url: '/workspaces/:workspace_id/projects/:project_id/environments/:environment_id',
    security: 'sessionCookie',
    operationId: 'consoleDeleteEnvironment',
    summary: 'Delete an environment',
    description: `Its revoked and expired keys go too; the month's usage keeps their counts. ${REFUSED}`,
    tags,
    params: environmentParams,
    response: deletedSchema,
    errors: ['ERR_UNAUTHORIZED', 'ERR_CSRF', 'ERR_NOT_FOUND', 'ERR_CONFLICT'],
    handler: async ({ params, request }) => {
      const { workspace } = await ownedWorkspace(deps, request.consoleAuth!.user.id, params.workspace_id)
      const project = await ownedProject(deps, workspace, params.project_id)
      const environment = await ownedProjectEnvironment(deps, project, params.environment_id)
      const outcome = await store.deleteEnvironment(project.id, environment.id)
      await settleDelete(
        deps,
        `environment (${environment.name})`,
        outcome,
        gone('environment', environment.id),
      )
      return { id: environment.id, deleted: true as const }
    },
  })
}
