import scalar from '@scalar/fastify-api-reference'
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { AppError } from '../errors.ts'
import { defineRoute } from './define-route.ts'
import { declareScopeSecurity } from './hooks/access.ts'
import type { CollectedRoute } from './openapi/collector.ts'
import { buildOpenApi } from './openapi/document.ts'

export interface MetaOptions {
  routes: CollectedRoute[]
  version: string
  ready: () => Promise<boolean>
}

// Keyless endpoints: liveness, readiness, the OpenAPI document and the page that renders it.
export async function metaRoutes(app: FastifyInstance, options: MetaOptions): Promise<void> {
  let document: Record<string, unknown> | undefined

  defineRoute(app, {
    method: 'GET',
    url: '/healthz',
    operationId: 'healthz',
    summary: 'Liveness: the process is up',
    tags: ['Meta'],
    security: 'none',
    response: z.object({ status: z.literal('ok') }),
    handler: () => ({ status: 'ok' as const }),
  })

  defineRoute(app, {
    method: 'GET',
    url: '/readyz',
    operationId: 'readyz',
    summary: 'Readiness: the store and the worker pools can take traffic',
    tags: ['Meta'],
    security: 'none',
    response: z.object({ status: z.literal('ready') }),
    errors: ['ERR_UNAVAILABLE'],
    handler: async function readiness() {
      const ok = await options.ready().catch(() => false)
      if (!ok) throw new AppError('ERR_UNAVAILABLE', 'Not ready.', undefined, { 'retry-after': '1' })
      return { status: 'ready' as const }
    },
  })

  app.get('/v1/openapi.json', { config: { security: 'none' } }, function openapiDocument(_request, reply) {
    document ??= buildOpenApi(options.routes, options.version)
    return reply.type('application/json').send(document)
  })

  // the reference page is public: every route the plugin registers declares none
  await app.register(async function publicDocs(scope) {
    declareScopeSecurity(scope, 'none')
    await scope.register(scalar, {
      routePrefix: '/docs',
      configuration: { url: '/v1/openapi.json', title: 'Anvil API' },
      logLevel: 'silent',
    })
  })
}
