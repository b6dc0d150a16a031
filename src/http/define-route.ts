import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { z } from 'zod'
import type { ErrorCode } from '../errors.ts'
import type { OpInput, OpName, OpOutput } from '../ops/registry.ts'
import type { Security } from './hooks/access.ts'
import { RawJson, runOp, sendRawOp } from './run-op.ts'

type AnyZod = z.ZodType
type Infer<T> = T extends AnyZod ? z.output<T> : undefined

export interface RouteDoc {
  operationId: string
  summary: string
  description?: string
  tags: string[]
  response: AnyZod
  status?: 200 | 201 | 202
  errors?: ErrorCode[]
  binaryResponse?: boolean
  // the route's one access rule, mandatory and enforced after routing (src/http/hooks/access.ts); apiKey
  // routes also declare their family. sessionCookie: the console's signed-in session (src/http/console/),
  // with its X-CSRF-Token on writes
  security: Security
}

export interface RouteDef<B, Q, P, R extends AnyZod> extends RouteDoc {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  url: string
  family?: string
  binary?: boolean
  paidOnly?: boolean
  body?: B
  querystring?: Q
  params?: P
  response: R
  // the operation behind this route: with no handler the body is passed to it as is, and a large body of
  // an op that declares its schema in the registry is parsed on the worker (src/lib/raw-json.ts)
  op?: OpName
  handler?: (ctx: {
    body: Infer<B>
    query: Infer<Q>
    params: Infer<P>
    request: FastifyRequest
    reply: FastifyReply
    // runs an operation inline or on the plan's worker pool (see src/exec/dispatch.ts)
    run: <N extends OpName>(name: N, input: OpInput<N>) => Promise<OpOutput<N>>
  }) => Promise<z.input<R> | FastifyReply> | z.input<R> | FastifyReply
}

declare module 'fastify' {
  interface FastifyContextConfig {
    doc?: RouteDoc
    op?: OpName
  }
}

// A route that takes no query parameters refuses any (a mistyped option must not be silently ignored),
// except a keyless GET such as a health probe, where a load balancer may append its own.
const NO_QUERY = z.strictObject({})

// Schemas first: zod validates the parts, the same schemas feed the OpenAPI document, and the
// handler returns plain data that is wrapped in the success envelope here, once.
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
    body,
    querystring,
    params,
    op,
    handler: custom,
    ...doc
  } = def
  const handler: NonNullable<typeof custom> =
    custom ?? (({ body: input, run }) => run(op as OpName, input as never) as Promise<z.input<R>>)
  const status = def.status ?? 200
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
    config: { family, binary, paidOnly, doc, op, security: doc.security },
    async handler(request, reply) {
      if (op && request.body instanceof RawJson) return sendRawOp(request, reply, op, request.body)
      const result = await handler({
        body: request.body as Infer<B>,
        query: request.query as Infer<Q>,
        params: request.params as Infer<P>,
        request,
        reply,
        run: (name, input) => runOp(request, reply, name, input),
      })
      // a handler that answered itself (raw bytes, a stream) returns the reply, which is thenable: awaiting
      // it resolves to undefined, so check whether a response is under way rather than what came back
      if (result === reply || reply.sent) return reply
      reply.code(status)
      return { ok: true, data: result }
    },
  }
  app.route(options)
}
