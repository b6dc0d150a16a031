import type { FastifyInstance } from 'fastify'
import type { z } from 'zod'
import type { RouteDoc } from './route-doc.ts'

export interface CollectedRoute {
  method: string
  url: string
  family: string | undefined
  binary: boolean
  // the route replays a stored answer for a repeated Idempotency-Key (route config `idempotent`)
  idempotent: boolean
  body: z.ZodType | undefined
  querystring: z.ZodType | undefined
  params: z.ZodType | undefined
  doc: RouteDoc
}

// Gathers every documented route as it is registered; the OpenAPI document is built from this list.
export function collectRoutes(app: FastifyInstance): CollectedRoute[] {
  const routes: CollectedRoute[] = []
  app.addHook('onRoute', function collectDocumentedRoute(route) {
    const doc = route.config?.doc
    if (!doc || route.method === 'HEAD') return
    const schema = (route.schema ?? {}) as Record<string, z.ZodType | undefined>
    routes.push({
      method: String(route.method),
      url: route.url,
      family: route.config?.family,
      binary: route.config?.binary === true,
      idempotent: (route.config as { idempotent?: unknown } | undefined)?.idempotent === true,
      body: schema.body,
      querystring: schema.querystring,
      params: schema.params,
      doc,
    })
  })
  return routes
}
