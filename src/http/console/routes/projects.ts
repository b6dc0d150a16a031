import type { FastifyInstance } from 'fastify'
import { AppError } from '../../../errors.ts'
import { effectiveLimits } from '../../../limits/plans.ts'
import { newestFirst, pageOf } from '../../../store/page.ts'
import type { Workspace } from '../../../store/types.ts'
import { defineRoute } from '../../route/define-route.ts'
import { listSchema, pageOrRefuse, pageQuery, pageRequest } from '../../route/pagination.ts'
import { ownedProject, ownedWorkspace } from '../access.ts'
import type { ConsoleDeps } from '../context.ts'
import { environmentView, projectViews } from '../views.ts'
import {
  createEnvironmentBody,
  createProjectBody,
  environmentSchema,
  projectParams,
  projectSchema,
  workspaceParams,
} from './schemas.ts'

const tags = ['Console']

function exists(what: 'project' | 'environment'): AppError {
  const a = what === 'environment' ? 'an' : 'a'
  return new AppError('ERR_CONFLICT', `${a === 'an' ? 'An' : 'A'} ${what} with this name exists.`, {
    issues: [{ path: 'name', message: `${a} ${what} with this name exists` }],
  })
}

// The store's project and environment calls are get-or-create (so the admin API's "default" and
// "production" just work); the console creates explicitly and says so when the name is taken.
export async function projectRoutes(app: FastifyInstance, { deps }: { deps: ConsoleDeps }): Promise<void> {
  const { store } = deps
  const capsOf = (ws: Workspace) => effectiveLimits(deps.plans, ws.plan, ws.overrides)

  defineRoute(app, {
    method: 'GET',
    url: '/workspaces/:workspace_id/projects',
    security: 'sessionCookie',
    operationId: 'consoleListProjects',
    summary: "A workspace's projects with their environments, newest first (paginated)",
    description:
      "Paged in memory: a workspace holds at most its plan's max_projects projects, read in one call.",
    tags,
    params: workspaceParams,
    querystring: pageQuery,
    response: listSchema(projectSchema, 'Projects'),
    errors: ['ERR_UNAUTHORIZED', 'ERR_NOT_FOUND', 'ERR_VALIDATION'],
    handler: async ({ params, query, request }) => {
      const { workspace } = await ownedWorkspace(deps, request.consoleAuth!.user.id, params.workspace_id)
      const projects = (await projectViews(deps, workspace.id)).sort(newestFirst)
      return pageOrRefuse(pageOf(projects, pageRequest(query)), query.starting_after)
    },
  })

  defineRoute(app, {
    method: 'GET',
    url: '/workspaces/:workspace_id/projects/:project_id/environments',
    security: 'sessionCookie',
    operationId: 'consoleListEnvironments',
    summary: "A project's environments, newest first (paginated)",
    description: "Paged in memory: a workspace holds at most its plan's max_environments environments.",
    tags,
    params: projectParams,
    querystring: pageQuery,
    response: listSchema(environmentSchema, 'Environments'),
    errors: ['ERR_UNAUTHORIZED', 'ERR_NOT_FOUND', 'ERR_VALIDATION'],
    handler: async ({ params, query, request }) => {
      const { workspace } = await ownedWorkspace(deps, request.consoleAuth!.user.id, params.workspace_id)
      const project = await ownedProject(deps, workspace, params.project_id)
      const environments = (await store.listEnvironments(project.id)).sort(newestFirst).map(environmentView)
      return pageOrRefuse(pageOf(environments, pageRequest(query)), query.starting_after)
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/workspaces/:workspace_id/projects',
    security: 'sessionCookie',
    operationId: 'consoleCreateProject',
    idempotent: true,
    summary: 'Create a project',
    description: "Past the plan's max_projects: 409 ERR_CONFLICT with details {limit, max}.",
    tags,
    params: workspaceParams,
    body: createProjectBody,
    response: projectSchema,
    errors: ['ERR_UNAUTHORIZED', 'ERR_CSRF', 'ERR_NOT_FOUND', 'ERR_CONFLICT'],
    handler: async ({ params, body, request }) => {
      const { workspace } = await ownedWorkspace(deps, request.consoleAuth!.user.id, params.workspace_id)
      if ((await store.listProjects(workspace.id)).some((p) => p.name === body.name)) throw exists('project')
      const project = await store.ensureProject(workspace.id, body.name, capsOf(workspace).max_projects)
      return { id: project.id, name: project.name, created_at: project.created_at, environments: [] }
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/workspaces/:workspace_id/projects/:project_id/environments',
    security: 'sessionCookie',
    operationId: 'consoleCreateEnvironment',
    idempotent: true,
    summary: 'Create an environment (live or test mode) in a project',
    description:
      "Past the plan's max_environments (counted across the workspace's projects): 409 ERR_CONFLICT with " +
      'details {limit, max}.',
    tags,
    params: projectParams,
    body: createEnvironmentBody,
    response: environmentSchema,
    errors: ['ERR_UNAUTHORIZED', 'ERR_CSRF', 'ERR_NOT_FOUND', 'ERR_CONFLICT'],
    handler: async ({ params, body, request }) => {
      const { workspace } = await ownedWorkspace(deps, request.consoleAuth!.user.id, params.workspace_id)
      const project = await ownedProject(deps, workspace, params.project_id)
      if ((await store.listEnvironments(project.id)).some((e) => e.name === body.name))
        throw exists('environment')
      const max = capsOf(workspace).max_environments
      return environmentView(await store.ensureEnvironment(project.id, body.name, body.mode, max))
    },
  })
}
