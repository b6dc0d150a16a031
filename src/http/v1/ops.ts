import type { FastifyInstance } from 'fastify'
import type { Catalog } from '../../ops/catalog.ts'
import type { AnyOp } from '../../ops/define.ts'
import { defineRoute } from '../route/define-route.ts'

// One route per operation of the catalog (src/ops/catalog.ts), declared from its descriptor
// (src/ops/define.ts): POST at its path, keyed, in its family's scope; a JSON body validated by its schema,
// a raw application/octet-stream body too when the op streams, and an answer in raw bytes too when it can
// make one (or streams). Adding an op adds its route here without touching this file.
function routeOf(op: AnyOp, catalog: Catalog) {
  const http = op.http
  return {
    method: 'POST' as const,
    url: http.path,
    security: 'apiKey' as const,
    family: op.family,
    op,
    binary: op.stream !== undefined,
    binaryResponse: op.stream !== undefined || op.octets !== undefined,
    operationId: http.operationId,
    summary: http.summary,
    description: http.description,
    tags: [catalog.family(op.family).tag],
    ...(http.params ? { params: http.params } : {}),
    ...(http.query ? { querystring: http.query } : {}),
    body: op.body,
    response: op.response,
    ...(http.errors ? { errors: [...http.errors] } : {}),
  }
}

export async function opRoutes(app: FastifyInstance, options: { catalog: Catalog }): Promise<void> {
  for (const op of options.catalog.ops) defineRoute(app, routeOf(op, options.catalog))
}
