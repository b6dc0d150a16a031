import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '../../../errors.ts'
import { createApiKey, type KeyOutcome, revokeApiKey, rotateApiKey } from '../../../keys/service.ts'
import { familiesFor } from '../../../limits/families.ts'
import type { ApiKeyRecord } from '../../../store/types.ts'
import { rotateBody } from '../../admin/schemas.ts'
import { defineRoute } from '../../route/define-route.ts'
import { listSchema, pageOrRefuse, pageQuery, pageRequest } from '../../route/pagination.ts'
import { ownedEnvironment, ownedKey, ownedWorkspace } from '../access.ts'
import type { ConsoleDeps } from '../context.ts'
import { curlExample, publicHost } from '../curl.ts'
import { keyViews } from '../views.ts'
import { createKeyConsoleBody, keyCreatedSchema, keyParams, keySchema, workspaceParams } from './schemas.ts'

const tags = ['Console']

function failure(outcome: Extract<KeyOutcome, { ok: false }>, keyId?: string): AppError {
  switch (outcome.reason) {
    case 'key_revoked':
      return new AppError('ERR_VALIDATION', 'A revoked key cannot be rotated.', {
        issues: [{ path: 'key_id', message: 'key is revoked' }],
      })
    case 'key_not_found':
      return new AppError('ERR_NOT_FOUND', `No key ${keyId}.`, { id: keyId })
    // the environment was just checked; these mean it changed underneath us
    case 'workspace_not_found':
    case 'mode_mismatch':
      return new AppError('ERR_CONFLICT', 'The environment changed meanwhile; reload and try again.')
  }
}

// Key management for the signed-in owner, through the same service as the admin API: the plaintext
// key exists only in the create/rotate response, next to a curl line that uses it.
export async function keyRoutes(app: FastifyInstance, { deps }: { deps: ConsoleDeps }): Promise<void> {
  const { store, clock } = deps

  async function created(request: FastifyRequest, workspaceId: string, record: ApiKeyRecord, key: string) {
    const [details] = await keyViews(deps, workspaceId, [record])
    return {
      id: record.id,
      key,
      prefix: record.prefix,
      curl: curlExample(publicHost(request), key, deps.caCertPath !== null),
      details: details!,
    }
  }

  defineRoute(app, {
    method: 'GET',
    url: '/workspaces/:workspace_id/keys',
    security: 'sessionCookie',
    operationId: 'consoleListKeys',
    summary:
      "A workspace's keys, newest first (paginated): prefix, scope, created, last used, status (never the key)",
    description:
      'Every key of the workspace, revoked, expired and rotated ones included: its project and environment, ' +
      'its scope (families, address allowlist, expiry, own quota), when it was last used, and after a ' +
      'rotation the key it replaced or was replaced by. Pages: `limit` (1–100, default 20), ' +
      '`starting_after`, `has_more`. A workspace that is not yours is 404 ERR_NOT_FOUND.',
    tags,
    params: workspaceParams,
    querystring: pageQuery,
    response: listSchema(keySchema, 'Keys'),
    errors: ['ERR_UNAUTHORIZED', 'ERR_NOT_FOUND', 'ERR_VALIDATION'],
    handler: async ({ params, query, request }) => {
      const { workspace } = await ownedWorkspace(deps, request.consoleAuth!.user.id, params.workspace_id)
      const page = pageOrRefuse(await store.pageKeys(workspace.id, pageRequest(query)), query.starting_after)
      return { data: await keyViews(deps, workspace.id, page.data), has_more: page.has_more }
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/workspaces/:workspace_id/keys',
    security: 'sessionCookie',
    operationId: 'consoleCreateKey',
    idempotent: true,
    summary: 'Create a key in an environment (the full key is in this response only)',
    description:
      "Past the plan's max_keys live keys: 409 ERR_CONFLICT with details {limit, max}. A family the " +
      "workspace's plan cannot use (`jobs` on the free plan) is 400 ERR_VALIDATION on `families`.",
    tags,
    params: workspaceParams,
    body: createKeyConsoleBody,
    response: keyCreatedSchema,
    errors: ['ERR_UNAUTHORIZED', 'ERR_CSRF', 'ERR_VALIDATION', 'ERR_NOT_FOUND', 'ERR_CONFLICT'],
    handler: async ({ params, body, request }) => {
      const { workspace } = await ownedWorkspace(deps, request.consoleAuth!.user.id, params.workspace_id)
      const { project, environment } = await ownedEnvironment(deps, workspace, body.environment_id)
      const unusable = body.families?.filter((f) => !familiesFor(workspace.plan).includes(f)) ?? []
      if (unusable.length > 0) {
        throw new AppError('ERR_VALIDATION', `The ${unusable.join(', ')} family needs a paid plan.`, {
          issues: [
            { path: 'families', message: `${unusable.join(', ')}: not on the ${workspace.plan} plan` },
          ],
        })
      }
      if (body.expires_at && Date.parse(body.expires_at) <= clock()) {
        throw new AppError('ERR_VALIDATION', 'The expiry is in the past.', {
          issues: [{ path: 'expires_at', message: 'must be in the future' }],
        })
      }
      const outcome = await createApiKey(
        store,
        {
          workspace_id: workspace.id,
          project: project.name,
          environment: environment.name,
          mode: environment.mode,
          name: body.name ?? null,
          families: body.families ?? null,
          expires_at: body.expires_at ?? null,
          allowed_cidrs: body.allowed_cidrs ?? null,
        },
        deps.plans,
      )
      if (!outcome.ok) throw failure(outcome)
      return created(request, workspace.id, outcome.record, outcome.key)
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/workspaces/:workspace_id/keys/:key_id/rotate',
    security: 'sessionCookie',
    operationId: 'consoleRotateKey',
    idempotent: true,
    summary: 'Issue a replacement key; the old one lives for grace_seconds (0 = revoked now)',
    description:
      'The replacement has the same project, environment and scope; the old key keeps working for ' +
      '`grace_seconds` (default 86400) so clients can switch, and both name each other (`replaced_by`, ' +
      "`rotated_from`). The replacement counts against the plan's max_keys (409 ERR_CONFLICT {limit, max} " +
      'when full); a revoked key cannot be rotated (400 ERR_VALIDATION). Safe to retry with an ' +
      '`Idempotency-Key` header.',
    tags,
    params: keyParams,
    body: rotateBody.nullish().transform((b) => b ?? { grace_seconds: 86400 }),
    response: keyCreatedSchema.extend({ replaces: keySchema }),
    errors: ['ERR_UNAUTHORIZED', 'ERR_CSRF', 'ERR_VALIDATION', 'ERR_NOT_FOUND', 'ERR_CONFLICT'],
    handler: async ({ params, body, request }) => {
      const { workspace } = await ownedWorkspace(deps, request.consoleAuth!.user.id, params.workspace_id)
      const key = await ownedKey(deps, workspace, params.key_id)
      const outcome = await rotateApiKey(store, key.id, body.grace_seconds, clock(), deps.plans)
      if (!outcome.ok) throw failure(outcome, key.id)
      const [replaces] = await keyViews(deps, workspace.id, [outcome.old!])
      return { ...(await created(request, workspace.id, outcome.record, outcome.key)), replaces: replaces! }
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/workspaces/:workspace_id/keys/:key_id/revoke',
    security: 'sessionCookie',
    operationId: 'consoleRevokeKey',
    summary: 'Revoke a key now, on every gateway',
    description:
      'The key is refused (401 ERR_INVALID_API_KEY) by every gateway within a second. Revoking a revoked ' +
      'key answers it again, unchanged. A key or workspace that is not yours is 404 ERR_NOT_FOUND.',
    tags,
    params: keyParams,
    response: keySchema,
    errors: ['ERR_UNAUTHORIZED', 'ERR_CSRF', 'ERR_NOT_FOUND'],
    handler: async ({ params, request }) => {
      const { workspace } = await ownedWorkspace(deps, request.consoleAuth!.user.id, params.workspace_id)
      const key = await ownedKey(deps, workspace, params.key_id)
      const result = await revokeApiKey(store, key.id, clock())
      if ('ok' in result) throw failure(result as Extract<KeyOutcome, { ok: false }>, key.id)
      const [view] = await keyViews(deps, workspace.id, [result])
      return view!
    },
  })
}
