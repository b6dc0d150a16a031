import type { FastifyInstance } from 'fastify'
import { AppError } from '../../../errors.ts'
import { defineRoute } from '../../route/define-route.ts'
import { ownedProject, ownedProjectEnvironment, ownedWorkspace } from '../access.ts'
import type { ConsoleDeps } from '../context.ts'
import { environmentView, projectViews, workspaceView } from '../views.ts'
import {
  environmentParams,
  environmentSchema,
  projectParams,
  projectSchema,
  renameBody,
  workspaceParams,
  workspaceSchema,
} from './schemas.ts'

const tags = ['Console']

function taken(what: string): AppError {
  return new AppError('ERR_CONFLICT', `Another ${what} here is called that already.`, {
    issues: [{ path: 'name', message: `another ${what} has this name` }],
  })
}

// Renames. A workspace's name is its own; a project's is unique in its workspace and an environment's in
// its project (checked and changed in one step by the store). Ids, keys and their prefixes do not change.
export async function renameRoutes(app: FastifyInstance, { deps }: { deps: ConsoleDeps }): Promise<void> {
  const { store } = deps

  defineRoute(app, {
    method: 'PATCH',
    url: '/workspaces/:workspace_id',
    security: 'sessionCookie',
    operationId: 'consoleRenameWorkspace',
    summary: 'Rename a workspace',
    description:
      'Changes the name only: its id, keys, plan and usage stay. Two workspaces may share a name. A ' +
      'workspace that is not yours is 404 ERR_NOT_FOUND.',
    tags,
    params: workspaceParams,
    body: renameBody,
    response: workspaceSchema,
    errors: ['ERR_UNAUTHORIZED', 'ERR_CSRF', 'ERR_NOT_FOUND'],
    handler: async ({ params, body, request }) => {
      const { workspace, role } = await ownedWorkspace(
        deps,
        request.consoleAuth!.user.id,
        params.workspace_id,
      )
      const renamed = await store.updateWorkspace(workspace.id, { name: body.name })
      if (!renamed) throw new AppError('ERR_NOT_FOUND', `No workspace ${workspace.id}.`, { id: workspace.id })
      return workspaceView(deps.plans, renamed, role)
    },
  })

  defineRoute(app, {
    method: 'PATCH',
    url: '/workspaces/:workspace_id/projects/:project_id',
    security: 'sessionCookie',
    operationId: 'consoleRenameProject',
    summary: 'Rename a project',
    description:
      'A name another project of the workspace has is 409 ERR_CONFLICT (issue on `name`). Keys keep working: ' +
      'they belong to the project by id. The admin API names projects by name, so a key it creates in the ' +
      'old name afterwards makes a new project of that name.',
    tags,
    params: projectParams,
    body: renameBody,
    response: projectSchema,
    errors: ['ERR_UNAUTHORIZED', 'ERR_CSRF', 'ERR_NOT_FOUND', 'ERR_CONFLICT'],
    handler: async ({ params, body, request }) => {
      const { workspace } = await ownedWorkspace(deps, request.consoleAuth!.user.id, params.workspace_id)
      const project = await ownedProject(deps, workspace, params.project_id)
      const renamed = await store.renameProject(workspace.id, project.id, body.name)
      if (renamed === 'name_taken') throw taken('project')
      const view = (await projectViews(deps, workspace.id)).find((p) => p.id === project.id)
      if (!renamed || !view)
        throw new AppError('ERR_NOT_FOUND', `No project ${project.id}.`, { id: project.id })
      return view
    },
  })

  defineRoute(app, {
    method: 'PATCH',
    url: '/workspaces/:workspace_id/projects/:project_id/environments/:environment_id',
    security: 'sessionCookie',
    operationId: 'consoleRenameEnvironment',
    summary: 'Rename an environment',
    description:
      'A name another environment of the project has is 409 ERR_CONFLICT (issue on `name`). The mode (live ' +
      'or test) does not change: it is in every key of the environment.',
    tags,
    params: environmentParams,
    body: renameBody,
    response: environmentSchema,
    errors: ['ERR_UNAUTHORIZED', 'ERR_CSRF', 'ERR_NOT_FOUND', 'ERR_CONFLICT'],
    handler: async ({ params, body, request }) => {
      const { workspace } = await ownedWorkspace(deps, request.consoleAuth!.user.id, params.workspace_id)
      const project = await ownedProject(deps, workspace, params.project_id)
      const environment = await ownedProjectEnvironment(deps, project, params.environment_id)
      const renamed = await store.renameEnvironment(project.id, environment.id, body.name)
      if (renamed === 'name_taken') throw taken('environment')
      if (!renamed)
        throw new AppError('ERR_NOT_FOUND', `No environment ${environment.id}.`, { id: environment.id })
      return environmentView(renamed)
    },
  })
}
