import type { FastifyInstance } from 'fastify'
import { AppError } from '../../../errors.ts'
import { newId } from '../../../store/ids.ts'
import { defineRoute } from '../../route/define-route.ts'
import { listSchema, pageOrRefuse, pageQuery, pageRequest } from '../../route/pagination.ts'
import { ownedWorkspace } from '../access.ts'
import type { ConsoleDeps } from '../context.ts'
import { createConsoleWorkspace } from '../new-workspace.ts'
import { usageView, workspaceView } from '../views.ts'
import { createWorkspaceBody, usageQuery, usageSchema, workspaceParams, workspaceSchema } from './schemas.ts'

const tags = ['Console']

export async function workspaceRoutes(app: FastifyInstance, { deps }: { deps: ConsoleDeps }): Promise<void> {
  const { store, accounts, plans } = deps

  defineRoute(app, {
    method: 'GET',
    url: '/workspaces',
    security: 'sessionCookie',
    operationId: 'consoleListWorkspaces',
    summary: 'The workspaces of the signed-in user, newest first (paginated)',
    description: 'Newest membership first (for a workspace its owner created: when it was created).',
    tags,
    querystring: pageQuery,
    response: listSchema(workspaceSchema, "The signed-in person's workspaces"),
    errors: ['ERR_UNAUTHORIZED', 'ERR_VALIDATION'],
    handler: async ({ request, query }) => {
      const userId = request.consoleAuth!.user.id
      const page = pageOrRefuse(
        await accounts.pageMemberships(userId, pageRequest(query)),
        query.starting_after,
      )
      // the page's workspaces only, read together (one round trip on Redis)
      const found = await Promise.all(
        page.data.map(async (m) => ({ workspace: await store.getWorkspace(m.workspace_id), role: m.role })),
      )
      const data = found.flatMap(({ workspace, role }) =>
        workspace ? [workspaceView(plans, workspace, role)] : [],
      )
      return { data, has_more: page.has_more }
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
      const userId = request.consoleAuth!.user.id
      // the owner's place first, taken atomically under the cap, then the workspace it names: parallel
      // creates get exactly the places left. The membership dates from the workspace, so the list, by
      // membership, is by creation too
      const id = newId('ws')
      const created_at = new Date(deps.clock()).toISOString()
      const membership = { user_id: userId, workspace_id: id, role: 'owner' as const, created_at }
      if (!(await accounts.addMembership(membership, deps.maxWorkspaces))) {
        throw new AppError('ERR_CONFLICT', `An account may own at most ${deps.maxWorkspaces} workspaces.`, {
          limit: deps.maxWorkspaces,
        })
      }
      try {
        const workspace = await createConsoleWorkspace(deps, body.name, { id, created_at })
        return workspaceView(plans, workspace, 'owner')
      } catch (err) {
        // the place is given back; a crash right here leaves it taken (a membership of nothing, shown nowhere)
        await accounts.removeMembership(userId, id).catch(() => {})
        throw err
      }
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
