import type { FastifyInstance } from 'fastify'
import { AppError } from '../../../errors.ts'
import { newestFirst, pageOf } from '../../../store/page.ts'
import { defineRoute } from '../../define-route.ts'
import { listSchema, pageOrRefuse, pageQuery, pageRequest } from '../../pagination.ts'
import { memberWorkspaces, ownedWorkspace } from '../access.ts'
import type { ConsoleDeps } from '../context.ts'
import { usageView, workspaceView } from '../views.ts'
import { createWorkspaceBody, usageQuery, usageSchema, workspaceParams, workspaceSchema } from './schemas.ts'

const tags = ['Console']

export async function workspaceRoutes(app: FastifyInstance, { deps }: { deps: ConsoleDeps }): Promise<void> {
  const { store, accounts, plans, clock } = deps

  defineRoute(app, {
    method: 'GET',
    url: '/workspaces',
    security: 'sessionCookie',
    operationId: 'consoleListWorkspaces',
    summary: 'The workspaces of the signed-in user, newest first (paginated)',
    description:
      'Paged in memory: a person belongs to a bounded number of workspaces (CONSOLE_MAX_WORKSPACES owned).',
    tags,
    querystring: pageQuery,
    response: listSchema(workspaceSchema, "The signed-in person's workspaces"),
    errors: ['ERR_UNAUTHORIZED', 'ERR_VALIDATION'],
    handler: async ({ request, query }) => {
      const views = (await memberWorkspaces(deps, request.consoleAuth!.user.id))
        .map((m) => workspaceView(plans, m.workspace, m.role))
        .sort(newestFirst)
      return pageOrRefuse(pageOf(views, pageRequest(query)), query.starting_after)
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/workspaces',
    security: 'sessionCookie',
    operationId: 'consoleCreateWorkspace',
    idempotent: true,
    summary: 'Create a workspace on the default plan; its creator owns it',
    tags,
    body: createWorkspaceBody,
    response: workspaceSchema,
    description:
      'A user owns at most CONSOLE_MAX_WORKSPACES workspaces (default 10, the one created at sign-up ' +
      'included); past that, 409 ERR_CONFLICT with details {limit}.',
    errors: ['ERR_UNAUTHORIZED', 'ERR_CSRF', 'ERR_CONFLICT'],
    handler: async ({ body, request }) => {
      const owned = (await accounts.listMemberships(request.consoleAuth!.user.id)).filter(
        (m) => m.role === 'owner',
      )
      if (owned.length >= deps.maxWorkspaces) {
        throw new AppError('ERR_CONFLICT', `An account may own at most ${deps.maxWorkspaces} workspaces.`, {
          limit: deps.maxWorkspaces,
        })
      }
      const workspace = await store.createWorkspace({ name: body.name, plan: deps.defaultPlan })
      await accounts.addMembership({
        user_id: request.consoleAuth!.user.id,
        workspace_id: workspace.id,
        role: 'owner',
        created_at: new Date(clock()).toISOString(),
      })
      return workspaceView(plans, workspace, 'owner')
    },
  })

  defineRoute(app, {
    method: 'GET',
    url: '/workspaces/:workspace_id',
    security: 'sessionCookie',
    operationId: 'consoleGetWorkspace',
    summary: 'A workspace with its plan and effective limits',
    description:
      "`limits` are what applies now: the plan's defaults with any overrides the operator set. A workspace " +
      'you are not a member of answers exactly like one that does not exist: 404 ERR_NOT_FOUND.',
    tags,
    params: workspaceParams,
    response: workspaceSchema,
    errors: ['ERR_UNAUTHORIZED', 'ERR_NOT_FOUND'],
    handler: async ({ params, request }) => {
      const { workspace, role } = await ownedWorkspace(
        deps,
        request.consoleAuth!.user.id,
        params.workspace_id,
      )
      return workspaceView(plans, workspace, role)
    },
  })

  defineRoute(app, {
    method: 'GET',
    url: '/workspaces/:workspace_id/usage',
    security: 'sessionCookie',
    operationId: 'consoleWorkspaceUsage',
    summary:
      "A month's requests (default: this UTC month) per workspace and per key, refusals, and daily counts",
    description:
      'Requests charged and requests refused by a rate or by the quota, for the workspace and each of its ' +
      'keys, with the monthly quota and the requests per day of `month` (YYYY-MM; default the current UTC ' +
      'month): what the usage page draws.',
    tags,
    params: workspaceParams,
    querystring: usageQuery,
    response: usageSchema,
    errors: ['ERR_UNAUTHORIZED', 'ERR_NOT_FOUND'],
    handler: async ({ params, query, request }) => {
      const { workspace } = await ownedWorkspace(deps, request.consoleAuth!.user.id, params.workspace_id)
      return usageView(deps, workspace, query.month)
    },
  })
}
