import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { z } from 'zod'
import { AppError, type ErrorCode } from '../errors.ts'
import type { RawOptions } from '../exec/dispatch.ts'
import { ANSWER_MEDIA_TYPES, answerFormat } from '../lib/accept.ts'
import type { OpName } from '../ops/registry.ts'
import { streamedBody } from './body/stream-digest.ts'
import type { Security } from './hooks/access.ts'
import { answerJson } from './lane/answer.ts'
import type { HeaderName } from './openapi/headers.ts'
import { RawJson, sendOp, sendOpBytes, sendRawOp } from './run-op.ts'

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
  // the operation behind this route: where it runs is decided from it before the body is read
  // (src/exec/decide.ts). A JSON body is its input (joined by what `adds` says), run inline or on the pool
  // as the decision says, and the answer is its JSON text in the envelope (serialized on the worker on the
  // pool; a body the decision hands to the worker is parsed there, src/lib/raw-json.ts) or, for
  // `adds(…).octets`, the op's raw bytes. An op route has no handler.
  op?: OpName
  // what the route adds to its op's input from the path (`with`), and whether the answer is the op's raw
  // bytes (`octets`: the request's Accept prefers application/octet-stream): the same inline and on the
  // worker (src/http/run-op.ts)
  adds?: (ctx: { params: Infer<P>; query: Infer<Q>; request: FastifyRequest; octets: boolean }) => RawOptions
  // a binary route's raw application/octet-stream body, streamed to the pool (src/http/body/stream-*.ts)
  stream?: (ctx: {
    body: NodeJS.ReadableStream
    query: Infer<Q>
    params: Infer<P>
    request: FastifyRequest
    reply: FastifyReply
    octets: boolean
  }) => Promise<z.input<R> | FastifyReply>
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
    adds,
    stream,
    handler: custom,
    ...doc
  } = def
  const status = def.status ?? 200
  if (op !== undefined && custom !== undefined)
    throw new Error(`route ${method} ${url}: an op route has no handler`)
  if (op === undefined && custom === undefined)
    throw new Error(`route ${method} ${url} has neither op nor handler`)
  if (stream !== undefined && !binary) throw new Error(`route ${method} ${url}: only a binary route streams`)
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
    handler(request, reply) {
      // the one negotiation of the answer's media type, for the routes that have two (none for the rest)
      let octets = false
      if (doc.binaryResponse) {
        const format = answerFormat(request.headers.accept)
        if (format === undefined)
          throw new AppError('ERR_NOT_ACCEPTABLE', undefined, { available: [...ANSWER_MEDIA_TYPES] })
        octets = format === 'octets'
      }
      const input = request.body
      if (op === undefined) return answerHandler(request, reply, input)
      const streamed = stream === undefined ? undefined : streamedBody(request, input)
      if (streamed !== undefined) {
        const ctx = { body: streamed, query: request.query as Infer<Q>, params: request.params as Infer<P> }
        return stream!({ ...ctx, request, reply, octets }).then((result) =>
          answerData(request, reply, result),
        )
      }
      const options = adds?.({
        params: request.params as Infer<P>,
        query: request.query as Infer<Q>,
        request,
        octets,
      })
      if (input instanceof RawJson) return sendRawOp(request, reply, op, input, options)
      const joined = options?.with === undefined ? input : { ...(input as object), ...options.with }
      if (options?.octets === true) return sendOpBytes(request, reply, op, joined)
      return sendOp(request, reply, op, joined, status)
    },
  }
  // a route without an op: its handler's plain data, in the envelope
  async function answerHandler(request: FastifyRequest, reply: FastifyReply, input: unknown) {
    const result = await custom!({
      body: input as Infer<B>,
      query: request.query as Infer<Q>,
      params: request.params as Infer<P>,
      request,
      reply,
    })
    return answerData(request, reply, result)
  }
  function answerData(request: FastifyRequest, reply: FastifyReply, result: unknown) {
    // a handler that answered itself (raw bytes, a stream) returns the reply, which is thenable: awaiting
    // it resolves to undefined, so check whether a response is under way rather than what came back
    if (result === reply || reply.sent) return reply
    return answerJson(request, reply, status, JSON.stringify({ ok: true, data: result }))
  }
  app.route(options)
}
