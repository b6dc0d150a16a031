import type { FastifyInstance } from 'fastify'
import { AppError } from '../../errors.ts'
import { effectiveLimits } from '../../limits/plans.ts'
import { newestFirst, pageOf } from '../../store/page.ts'
import type { Environment, Project, Store, Workspace } from '../../store/types.ts'
import { defineRoute } from '../route/define-route.ts'
import { listSchema, pageOrRefuse, pageQuery, pageRequest } from '../route/pagination.ts'
import {
  createEnvironmentBody,
  createProjectBody,
  environmentSchema,
  projectParams,
  projectSchema,
  workspaceIdParams,
} from './schemas.ts'
import type { AdminOptions } from './workspaces.ts'

const tags = ['Admin']

function environmentView(e: Environment) {
  return { id: e.id, project_id: e.project_id, name: e.name, mode: e.mode, created_at: e.created_at }
}

async function projectView(store: Store, p: Project) {
  const environments = (await store.listEnvironments(p.id)).sort(newestFirst).map(environmentView)
  return { id: p.id, workspace_id: p.workspace_id, name: p.name, created_at: p.created_at, environments }
}

function exists(what: 'project' | 'environment'): AppError {
  const a = what === 'environment' ? 'an' : 'a'
  return new AppError('ERR_CONFLICT', `${a === 'an' ? 'An' : 'A'} ${what} with this name exists.`, {
    issues: [{ path: 'name', message: `${a} ${what} with this name exists` }],
  })
}

// Projects and their environments, for operators (and the admin CLI's `projects` and `environments`
// commands): listed, and created explicitly, where POST /admin/keys creates them on the way (get or create)
// by name. The console has the same for people, under its session.
export async function adminProjectRoutes(app: FastifyInstance, options: AdminOptions): Promise<void> {
  const { store, plans } = options

  async function workspace(id: string): Promise<Workspace> {
    const ws = await store.getWorkspace(id)
    if (!ws) throw new AppError('ERR_NOT_FOUND', `No workspace ${id}.`, { id })
    return ws
  }
  async function project(ws: Workspace, id: string): Promise<Project> {
    const found = (await store.listProjects(ws.id)).find((p) => p.id === id)
    if (!found) throw new AppError('ERR_NOT_FOUND', `No project ${id} in workspace ${ws.id}.`, { id })
    return found
  }

  defineRoute(app, {
    method: 'GET',
    url: '/admin/workspaces/:workspace_id/projects',
    security: 'admin',
    operationId: 'adminListProjects',
    summary: "A workspace's projects with their environments, newest first (paginated)",
    description:
      "Paged in memory: a workspace holds at most its plan's max_projects projects, read in one call. " +
      'Pages: `limit` (1–100, default 20), `starting_after`, `has_more`. An unknown workspace is 404.',
    tags,
    params: workspaceIdParams,
    querystring: pageQuery,
    response: listSchema(projectSchema, 'AdminProjects'),
    errors: ['ERR_NOT_FOUND', 'ERR_VALIDATION'],
    handler: async ({ params, query }) => {
      const ws = await workspace(params.workspace_id)
      const page = pageOrRefuse(
        pageOf((await store.listProjects(ws.id)).sort(newestFirst), pageRequest(query)),
        query.starting_after,
      )
      return { data: await Promise.all(page.data.map((p) => projectView(store, p))), has_more: page.has_more }
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/admin/workspaces/:workspace_id/projects',
    security: 'admin',
    operationId: 'adminCreateProject',
    idempotent: true,
    summary: 'Create a project',
    description:
      "A name the workspace already uses is 409 ERR_CONFLICT; past the plan's max_projects, 409 ERR_CONFLICT " +
      'with details {limit, max}. Safe to retry with an `Idempotency-Key` header.',
    tags,
    params: workspaceIdParams,
    body: createProjectBody,
    response: projectSchema,
    errors: ['ERR_NOT_FOUND', 'ERR_CONFLICT'],
    handler: async ({ params, body }) => {
      const ws = await workspace(params.workspace_id)
      if ((await store.listProjects(ws.id)).some((p) => p.name === body.name)) throw exists('project')
      const max = effectiveLimits(plans, ws.plan, ws.overrides).max_projects
      return projectView(store, await store.ensureProject(ws.id, body.name, max))
    },
  })

  defineRoute(app, {
    method: 'GET',
    url: '/admin/workspaces/:workspace_id/projects/:project_id/environments',
    security: 'admin',
    operationId: 'adminListEnvironments',
    summary: "A project's environments, newest first (paginated)",
    description: "Paged in memory: a workspace holds at most its plan's max_environments environments.",
    tags,
    params: projectParams,
    querystring: pageQuery,
    response: listSchema(environmentSchema, 'AdminEnvironments'),
    errors: ['ERR_NOT_FOUND', 'ERR_VALIDATION'],
    handler: async ({ params, query }) => {
      const p = await project(await workspace(params.workspace_id), params.project_id)
      const environments = (await store.listEnvironments(p.id)).sort(newestFirst).map(environmentView)
      return pageOrRefuse(pageOf(environments, pageRequest(query)), query.starting_after)
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/admin/workspaces/:workspace_id/projects/:project_id/environments',
    security: 'admin',
    operationId: 'adminCreateEnvironment',
    idempotent: true,
    summary: 'Create an environment (live or test mode) in a project',
    description:
      'Its keys start anvil_live_ or anvil_test_ as its mode says (test mode: docs/api.md, "Test mode"). A ' +
      "name the project already uses is 409 ERR_CONFLICT; past the plan's max_environments (counted across " +
      "the workspace's projects), 409 ERR_CONFLICT with details {limit, max}.",
    tags,
    params: projectParams,
    body: createEnvironmentBody,
    response: environmentSchema,
    errors: ['ERR_NOT_FOUND', 'ERR_CONFLICT'],
    handler: async ({ params, body }) => {
      const ws = await workspace(params.workspace_id)
      const p = await project(ws, params.project_id)
      if ((await store.listEnvironments(p.id)).some((e) => e.name === body.name)) throw exists('environment')
      const max = effectiveLimits(plans, ws.plan, ws.overrides).max_environments
      return environmentView(await store.ensureEnvironment(p.id, body.name, body.mode, max))
    },
  })
}
