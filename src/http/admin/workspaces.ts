import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { AppError } from '../../errors.ts'
import { effectiveLimits, type PlanTable } from '../../limits/plans.ts'
import type { Store, Workspace } from '../../store/types.ts'
import { defineRoute } from '../route/define-route.ts'
import { listSchema, pageOrRefuse, pageQuery, pageRequest } from '../route/pagination.ts'
import { createWorkspaceBody, idParams, patchWorkspaceBody, usageSchema, workspaceSchema } from './schemas.ts'

export interface AdminOptions {
  store: Store
  plans: PlanTable
  clock: () => number
}

function notFound(id: string): AppError {
  return new AppError('ERR_NOT_FOUND', `No workspace ${id}.`, { id })
}

export async function adminWorkspaceRoutes(app: FastifyInstance, options: AdminOptions): Promise<void> {
  const { store, plans } = options
  const view = (ws: Workspace) => ({ ...ws, limits: effectiveLimits(plans, ws.plan, ws.overrides) })
  const tags = ['Admin']

  defineRoute(app, {
    method: 'POST',
    url: '/admin/workspaces',
    security: 'admin',
    operationId: 'adminCreateWorkspace',
    idempotent: true,
    summary: 'Create a workspace',
    description:
      "A workspace on a plan (free unless `plan` says otherwise), with that plan's limits and no overrides; " +
      'the answer shows its effective limits. Keys, projects and environments are created in it afterwards ' +
      '(POST /admin/keys). Safe to retry with an `Idempotency-Key` header.',
    tags,
    body: createWorkspaceBody,
    response: workspaceSchema,
    handler: async ({ body }) => view(await store.createWorkspace(body)),
  })

  defineRoute(app, {
    method: 'GET',
    url: '/admin/workspaces',
    security: 'admin',
    operationId: 'adminListWorkspaces',
    summary: 'List workspaces, newest first (paginated)',
    description:
      'Every workspace with its effective limits, newest first. Pages: `limit` (1–100, default 20) and ' +
      '`starting_after` (the last id of the previous page; an id that is not a workspace is 400 ' +
      'ERR_VALIDATION); `has_more` says whether more follow.',
    tags,
    querystring: pageQuery,
    response: listSchema(workspaceSchema, 'Workspaces'),
    errors: ['ERR_VALIDATION'],
    handler: async ({ query }) => {
      const page = pageOrRefuse(await store.pageWorkspaces(pageRequest(query)), query.starting_after)
      return { data: page.data.map(view), has_more: page.has_more }
    },
  })

  defineRoute(app, {
    method: 'GET',
    url: '/admin/workspaces/:id',
    security: 'admin',
    operationId: 'adminGetWorkspace',
    summary: 'Get a workspace with its effective limits',
    description:
      "`limits` are what applies now: the plan's defaults with the workspace's `overrides` on top. An " +
      'unknown id is 404 ERR_NOT_FOUND.',
    tags,
    params: idParams,
    response: workspaceSchema,
    errors: ['ERR_NOT_FOUND'],
    handler: async ({ params }) => {
      const ws = await store.getWorkspace(params.id)
      if (!ws) throw notFound(params.id)
      return view(ws)
    },
  })

  defineRoute(app, {
    method: 'PATCH',
    url: '/admin/workspaces/:id',
    security: 'admin',
    operationId: 'adminUpdateWorkspace',
    summary: "Change a workspace's plan or per-workspace limit overrides",
    description: 'Overrides merge into the existing ones; set a field to change it. Applies within a second.',
    tags,
    params: idParams,
    body: patchWorkspaceBody,
    response: workspaceSchema,
    errors: ['ERR_NOT_FOUND'],
    handler: async ({ params, body }) => {
      const ws = await store.updateWorkspace(params.id, body)
      if (!ws) throw notFound(params.id)
      return view(ws)
    },
  })

  defineRoute(app, {
    method: 'GET',
    url: '/admin/workspaces/:id/usage',
    security: 'admin',
    operationId: 'adminWorkspaceUsage',
    summary: "This month's requests and refusals, per workspace and per key",
    description:
      'Counts for the current UTC month, or for `month` (YYYY-MM): requests charged, requests refused by a ' +
      'rate and by the quota, for the workspace and for each of its keys (revoked ones included), and ' +
      'requests per day.',
    tags,
    params: idParams,
    querystring: z.strictObject({
      month: z
        .string()
        .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'YYYY-MM')
        .optional(),
    }),
    response: usageSchema,
    errors: ['ERR_NOT_FOUND'],
    handler: async ({ params, query }) => {
      const ws = await store.getWorkspace(params.id)
      if (!ws) throw notFound(params.id)
      const [usage, keys] = await Promise.all([store.usage(ws.id, query.month), store.listKeys(ws.id)])
      const zero = { requests: 0, refused_rate: 0, refused_quota: 0 }
      return {
        month: usage.month,
        workspace: {
          ...usage.workspace,
          monthly_quota: effectiveLimits(plans, ws.plan, ws.overrides).monthly_quota,
        },
        test: {
          ...usage.test,
          monthly_quota: effectiveLimits(plans, ws.plan, ws.overrides).monthly_quota,
        },
        keys: keys.map((k) => ({ id: k.id, prefix: k.prefix, name: k.name, ...(usage.keys[k.id] ?? zero) })),
        daily: usage.daily,
      }
    },
  })
}
