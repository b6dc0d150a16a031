import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { z } from 'zod'
import { okEnvelope } from '../../lib/envelope.ts'
import type { AnyOp } from '../../ops/define.ts'
import { answerJson } from '../answer/answer.ts'
import type { RouteDoc } from '../openapi/route-doc.ts'
import { compileOpRun } from './run-op.ts'

type AnyZod = z.ZodType
type Infer<T> = T extends AnyZod ? z.output<T> : undefined

export interface RouteDef<B, Q, P, R extends AnyZod> extends RouteDoc {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  url: string
  family?: string
  binary?: boolean
  paidOnly?: boolean
  // see FastifyContextConfig.charge (src/http/fastify-augment.ts)
  charge?: 'full' | 'rate-only'
  body?: B
  querystring?: Q
  params?: P
  response: R
  // the operation behind this route (src/ops/define.ts): where it runs is decided from it before the body
  // is read (src/exec/decide.ts), and its run step is compiled from it (src/http/route/run-op.ts). An op route has
  // no handler: src/http/v1/ops.ts declares one per op of the catalog.
  op?: AnyOp
  // a route without an op: plain data back, wrapped in the success envelope here, once (or the reply, when
  // the handler answered itself)
  handler?: (ctx: {
    body: Infer<B>
    query: Infer<Q>
    params: Infer<P>
    request: FastifyRequest
    reply: FastifyReply
  }) => Promise<z.input<R> | FastifyReply> | z.input<R> | FastifyReply
}

// A route that takes no query parameters refuses any (a mistyped option must not be silently ignored),
// except a keyless GET such as a health probe, where a load balancer may append its own.
const NO_QUERY = z.strictObject({})

// run: the lane's step that runs the route, compiled here once per route (its op's run, src/http/route/run-op.ts, or
// its handler's), then the answer step (src/http/answer/answer.ts). Schemas first: zod validates the parts, the
// same schemas feed the OpenAPI document, and a handler returns plain data that is wrapped in the success
// envelope here, once.
export function defineRoute<
  B extends AnyZod | undefined,
  Q extends AnyZod | undefined,
  P extends AnyZod | undefined,
  R extends AnyZod,
>(app: FastifyInstance, def: RouteDef<B, Q, P, R>): void {
  const {
    method,
    url,
    family,
    binary,
    paidOnly,
    charge,
    body,
    querystring,
    params,
    op,
    handler: custom,
    ...doc
  } = def
  const status = def.status ?? 200
  if (op !== undefined && custom !== undefined)
    throw new Error(`route ${method} ${url}: an op route has no handler`)
  if (op === undefined && custom === undefined)
    throw new Error(`route ${method} ${url} has neither op nor handler`)
  if (op?.stream !== undefined && !binary)
    throw new Error(`route ${method} ${url}: only a binary route streams`)
  const options: RouteOptions = {
    method,
    url,
    schema: Object.fromEntries(
      Object.entries({
        body,
        querystring:
          querystring ??
          (method === 'GET' && (doc.security ?? (family ? 'apiKey' : 'none')) === 'none'
            ? undefined
            : NO_QUERY),
        params,
      }).filter(([, v]) => v !== undefined),
    ),
    config: { family, binary, paidOnly, charge, doc, op, security: doc.security, idempotent: doc.idempotent },
    handler: op === undefined ? handlerRun(custom!, status) : compileOpRun(op, status),
  }
  app.route(options)
}

// The run step of a route without an op: its handler's plain data, in the envelope.
function handlerRun<B, Q, P, R extends AnyZod>(
  handler: NonNullable<RouteDef<B, Q, P, R>['handler']>,
  status: number,
) {
  return async function runHandler(request: FastifyRequest, reply: FastifyReply) {
    const result = await handler({
      body: request.body as Infer<B>,
      query: request.query as Infer<Q>,
      params: request.params as Infer<P>,
      request,
      reply,
    })
    // a handler that answered itself (raw bytes, a stream) returns the reply, which is thenable: awaiting
    // it resolves to undefined, so check whether a response is under way rather than what came back
    if (result === reply || reply.sent) return reply
    return answerJson(request, reply, status, okEnvelope(JSON.stringify(result)))
  }
}
