import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { z } from 'zod'
import { AppError, type ErrorCode } from '../errors.ts'
import type { RawOptions } from '../exec/dispatch.ts'
import { ANSWER_MEDIA_TYPES, answerFormat } from '../lib/accept.ts'
import { type OpInput, type OpName, type OpOutput, parsesOnWorker } from '../ops/registry.ts'
import type { Security } from './hooks/access.ts'
import { answerJson } from './lane/answer.ts'
import type { HeaderName } from './openapi/headers.ts'
import { RawJson, runOp, sendOp, sendRawOp } from './run-op.ts'

type AnyZod = z.ZodType
type Infer<T> = T extends AnyZod ? z.output<T> : undefined

export interface RouteDoc {
  operationId: string
  summary: string
  // what a client needs to know beyond the summary (limits, edge cases, what the answer means): the
  // operation's description in the OpenAPI document, never the summary again
  description: string
  tags: string[]
  response: AnyZod
  status?: 200 | 201 | 202
  errors?: ErrorCode[]
  // answers raw bytes (application/octet-stream) or the JSON envelope, as the request's Accept prefers
  // (src/lib/accept.ts); neither acceptable → 406 ERR_NOT_ACCEPTABLE before the handler runs
  binaryResponse?: boolean
  // response headers only this route's success answer carries, each with when it is sent (the ones every
  // answer of its kind carries are src/http/openapi/headers.ts's)
  headers?: Partial<Record<HeaderName, string>>
  // honours an Idempotency-Key header (src/http/hooks/idempotency.ts): set on every POST that creates
  idempotent?: boolean
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
  // see FastifyContextConfig.charge (src/http/fastify-augment.ts)
  charge?: 'full' | 'rate-only'
  body?: B
  querystring?: Q
  params?: P
  response: R
  // the operation behind this route, the only one its handler's `run` may run: where it runs is decided
  // from it before the body is read (src/exec/decide.ts). With no handler the body is passed to it as is
  // and the answer is its JSON text (serialized on the worker on the pool), and a body the decision hands
  // to the worker is parsed there (src/lib/raw-json.ts)
  op?: OpName
  // for a route with a handler of its own whose large bodies the op parses on the worker (a `body` in its
  // registry entry): what the handler would add to the body (a path parameter) and whether it would answer
  // raw bytes; such a body then runs on the thread without the handler (src/http/run-op.ts, sendRawOp)
  pooled?: (ctx: {
    params: Infer<P>
    query: Infer<Q>
    request: FastifyRequest
    octets: boolean
  }) => RawOptions
  handler?: (ctx: {
    body: Infer<B>
    query: Infer<Q>
    params: Infer<P>
    request: FastifyRequest
    reply: FastifyReply
    // a binaryResponse route answers raw bytes (the request's Accept prefers application/octet-stream)
    octets: boolean
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

// run: the lane's step that runs the route (its op, inline or on the pool, or its handler), then hands the
// result to the answer step (src/http/lane/answer.ts). Schemas first: zod validates the parts, the same schemas feed the OpenAPI document, and the
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
    charge,
    body,
    querystring,
    params,
    op,
    pooled,
    handler: custom,
    ...doc
  } = def
  const status = def.status ?? 200
  // a large body of its op is parsed on the worker and never reaches the handler: the route must say what
  // the handler would add to it
  if (op && custom && parsesOnWorker(op) && !pooled) {
    throw new Error(`route ${method} ${url}: ${op} parses large bodies on the worker; declare pooled`)
  }
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
    async handler(request, reply) {
      // the one negotiation of the answer's media type, for the routes that have two (none for the rest)
      let octets = false
      if (doc.binaryResponse) {
        const format = answerFormat(request.headers.accept)
        if (format === undefined)
          throw new AppError('ERR_NOT_ACCEPTABLE', undefined, { available: [...ANSWER_MEDIA_TYPES] })
        octets = format === 'octets'
      }
      if (op && request.body instanceof RawJson) {
        const options = pooled?.({
          params: request.params as Infer<P>,
          query: request.query as Infer<Q>,
          request,
          octets,
        })
        return sendRawOp(request, reply, op, request.body, options)
      }
      if (!custom) {
        if (!op) throw new Error(`route ${method} ${url} has neither handler nor op`)
        return sendOp(request, reply, op, request.body, status)
      }
      const result = await custom({
        body: request.body as Infer<B>,
        query: request.query as Infer<Q>,
        params: request.params as Infer<P>,
        request,
        reply,
        octets,
        run: (name, input) => runOp(request, reply, name, input),
      })
      // a handler that answered itself (raw bytes, a stream) returns the reply, which is thenable: awaiting
      // it resolves to undefined, so check whether a response is under way rather than what came back
      if (result === reply || reply.sent) return reply
      return answerJson(request, reply, status, JSON.stringify({ ok: true, data: result }))
    },
  }
  app.route(options)
}
