import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { AppError } from '../../errors.ts'
import { createApiKey, type KeyOutcome, publicKey, revokeApiKey, rotateApiKey } from '../../keys/service.ts'
import { keyStatus } from '../../keys/status.ts'
import type { ApiKeyRecord } from '../../store/types.ts'
import { defineRoute } from '../route/define-route.ts'
import { listSchema, pageOrRefuse, pageQueryFields, pageRequest } from '../route/pagination.ts'
import { createKeyBody, idParams, keyCreatedSchema, keySchema, rotateBody } from './schemas.ts'
import type { AdminOptions } from './workspaces.ts'

function failure(outcome: Extract<KeyOutcome, { ok: false }>): AppError {
  switch (outcome.reason) {
    case 'workspace_not_found':
      return new AppError('ERR_NOT_FOUND', 'No such workspace.')
    case 'key_not_found':
      return new AppError('ERR_NOT_FOUND', 'No such key.')
    case 'key_revoked':
      return new AppError('ERR_VALIDATION', 'A revoked key cannot be rotated.', {
        issues: [{ path: 'id', message: 'key is revoked' }],
      })
    case 'mode_mismatch':
      return new AppError('ERR_VALIDATION', 'The environment exists with the other mode.', {
        issues: [{ path: 'mode', message: 'does not match the existing environment' }],
      })
  }
}

// A key as the admin API shows it: its record without the hash, and its status now
function keyView(record: ApiKeyRecord, now: number) {
  const { id, workspace_id, project_id, environment_id, mode, prefix, ...rest } = publicKey(record)
  return {
    id,
    workspace_id,
    project_id,
    environment_id,
    mode,
    prefix,
    status: keyStatus(record, now),
    ...rest,
  }
}

export async function adminKeyRoutes(app: FastifyInstance, options: AdminOptions): Promise<void> {
  const { store, clock, plans } = options
  const tags = ['Admin']

  defineRoute(app, {
    method: 'POST',
    url: '/admin/keys',
    security: 'admin',
    operationId: 'adminCreateKey',
    idempotent: true,
    summary: 'Create an API key (the full key is in this response only)',
    tags,
    body: createKeyBody,
    response: keyCreatedSchema,
    description:
      "A workspace holds at most its plan's max_keys live keys, max_projects projects and max_environments " +
      'environments; a create past one answers 409 ERR_CONFLICT with details {limit, max}.',
    errors: ['ERR_VALIDATION', 'ERR_NOT_FOUND', 'ERR_CONFLICT'],
    handler: async ({ body }) => {
      const outcome = await createApiKey(store, body, plans)
      if (!outcome.ok) throw failure(outcome)
      return { id: outcome.record.id, key: outcome.key, prefix: outcome.record.prefix }
    },
  })

  defineRoute(app, {
    method: 'GET',
    url: '/admin/keys',
    security: 'admin',
    operationId: 'adminListKeys',
    summary: "List a workspace's keys, newest first (paginated; never the key itself)",
    description:
      'Every key of `workspace_id`, revoked and rotated ones included, with its scope (families, address ' +
      'allowlist, expiry, own quota) and prefix; only a hash of a key is stored, so the key itself is never ' +
      'shown again. Pages: `limit` (1–100, default 20), `starting_after`, `has_more`.',
    tags,
    querystring: z.strictObject({ workspace_id: z.string().min(1), ...pageQueryFields }),
    response: listSchema(keySchema, 'Keys'),
    errors: ['ERR_VALIDATION'],
    handler: async ({ query }) => {
      // a filter naming no workspace is a mistake to report, not an empty list (docs/api.md, "Lists")
      if (!(await store.getWorkspace(query.workspace_id)))
        throw new AppError('ERR_VALIDATION', `No workspace ${query.workspace_id}.`, {
          issues: [{ path: 'workspace_id', message: 'is not the id of a workspace' }],
        })
      const page = pageOrRefuse(
        await store.pageKeys(query.workspace_id, pageRequest(query)),
        query.starting_after,
      )
      const now = clock()
      return { data: page.data.map((k) => keyView(k, now)), has_more: page.has_more }
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/admin/keys/:id/revoke',
    security: 'admin',
    operationId: 'adminRevokeKey',
    summary: 'Revoke a key now, on every gateway',
    description:
      'The key is refused (401 ERR_INVALID_API_KEY) by every gateway within a second. Revoking a revoked ' +
      'key answers it again, unchanged. An unknown id is 404 ERR_NOT_FOUND.',
    tags,
    params: idParams,
    response: keySchema,
    errors: ['ERR_NOT_FOUND'],
    handler: async ({ params }) => {
      const result = await revokeApiKey(store, params.id, clock())
      if ('ok' in result) throw failure(result as Extract<KeyOutcome, { ok: false }>)
      return keyView(result, clock())
    },
  })

  defineRoute(app, {
    method: 'POST',
    url: '/admin/keys/:id/rotate',
    security: 'admin',
    operationId: 'adminRotateKey',
    idempotent: true,
    summary: 'Issue a replacement key; the old one lives for grace_seconds (0 = revoked now)',
    tags,
    params: idParams,
    body: rotateBody.nullish().transform((b) => b ?? { grace_seconds: 86400 }),
    response: keyCreatedSchema.extend({ replaces: keySchema }),
    description: 'The replacement counts against max_keys (409 ERR_CONFLICT {limit, max} when full).',
    errors: ['ERR_VALIDATION', 'ERR_NOT_FOUND', 'ERR_CONFLICT'],
    handler: async ({ params, body }) => {
      const outcome = await rotateApiKey(store, params.id, body.grace_seconds, clock(), plans)
      if (!outcome.ok) throw failure(outcome)
      return {
        id: outcome.record.id,
        key: outcome.key,
        prefix: outcome.record.prefix,
        replaces: keyView(outcome.old!, clock()),
      }
    },
  })
}
