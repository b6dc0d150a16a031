import type { FastifyInstance, FastifyReply, FastifyRequest, RequestPayload } from 'fastify'
import fp from 'fastify-plugin'
import { AppError } from '../../errors.ts'
import { decideExecution, declaredBodyBytes } from '../../exec/decide.ts'
import { failureError } from '../../exec/pool-failure.ts'
import { jsonParseErrorOffset, locate } from '../../lib/json-error.ts'
import { RawJson } from '../../lib/raw-json.ts'
import { parseOpBody } from '../../ops/registry.ts'
import { consumeLimitedCallback, readLimitedCallback } from './consume-limited.ts'

export interface BodyParserOptions {
  // limit for requests that carry no plan (admin API, console)
  defaultLimit: number
  // how long a large body may wait, unread, for a place on its full pool before a 503
  admissionWaitMs: number
}

function tooLarge(limit: number): AppError {
  return new AppError('ERR_PAYLOAD_TOO_LARGE', undefined, { limit_bytes: limit })
}

export function checkCharset(contentType: string | undefined): void {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')
  if (m && !/^utf-?8$/i.test(m[1]!)) {
    throw new AppError('ERR_UNSUPPORTED_MEDIA_TYPE', 'JSON bodies must be UTF-8.', { charset: m[1] })
  }
}

// The declared length is checked before a byte is read, and the running total while streaming,
// so an oversized body is refused without being buffered.
export function declaredTooLarge(request: FastifyRequest): void {
  const declared = request.headers['content-length']
  if (declared !== undefined && Number(declared) > request.bodyLimit) throw tooLarge(request.bodyLimit)
}

// preParsing, after the access rule (so the plan is known) and before a byte of the body is read: the
// request's one execution decision (src/exec/decide.ts), stored on it for the parser, the route and the
// dispatcher. A JSON body bound for the pool then gets a place on it (src/exec/admission.ts), at once or
// after waiting its turn with the body unread; refused with 503 when none came free within the wait. The
// refusal closes the connection rather than letting Node drain the body: measured under a 16-connection
// flood of 190 KiB diffs (bench/isolation.ts), draining let the flood push 3x the bytes through the event
// loop's TLS and tripled paid p99.
function decideHook(waitMs: number) {
  return function decideAndAdmit(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: RequestPayload,
    done: (err: Error | null, payload?: RequestPayload) => void,
  ): void {
    const op = request.routeConfig.op
    const auth = request.auth
    if (!op || !auth) {
      done(null, payload)
      return
    }
    const contentType = request.headers['content-type']
    const decision = decideExecution({
      op,
      limits: auth.limits,
      declaredBytes: declaredBodyBytes(request.headers, request.raw.httpVersionMajor),
      contentType,
    })
    request.execution = { ...decision, reservation: null }
    const json = contentType?.startsWith('application/json') === true
    // one over the plan's limit is the parser's to refuse (413) at once; other media types its to refuse (415)
    const over = decision.declaredBytes !== undefined && decision.declaredBytes > request.bodyLimit
    if (decision.mode !== 'pool' || !json || over) {
      done(null, payload)
      return
    }
    const ctx = { workspaceId: auth.workspace.id, limits: auth.limits }
    const dispatcher = request.server.dispatcher
    const { reservation, admitted } = dispatcher.reserve(ctx, waitMs, op)
    // however the request ends, a place it never used (or its turn in the line) goes to the next one
    reply.raw.once('close', () => dispatcher.cancel(ctx, reservation))
    // an HTTP/2 body past its deadline gives its place (or its turn) back at once, and is answered 408
    const deadline = request.bodyDeadline
    deadline?.addEventListener('abort', () => dispatcher.cancel(ctx, reservation), { once: true })
    request.execution.reservation = reservation
    admitted.then((ok) => {
      if (ok) return done(null, payload)
      if (deadline?.aborted) return done(deadline.reason as Error)
      // (HTTP/2 has no such header: Node ends a stream whose body was never read with RST_STREAM itself)
      if (request.raw.httpVersionMajor === 1) reply.header('connection', 'close')
      done(failureError({ kind: 'overloaded' }, { subject: 'The operation' }))
    }, done)
  }
}

function truncated(request: FastifyRequest): Error {
  const raw = request.raw as { aborted?: boolean; stream?: { rstCode?: number } }
  if (raw.aborted === true || raw.stream?.rstCode !== undefined) {
    return Object.assign(new Error('aborted'), { code: 'ECONNRESET' })
  }
  return new AppError('ERR_BAD_REQUEST', 'Content-Length does not match the body.')
}

// Callback-style (no promise per request): this runs on every JSON request.
function parseJsonBody(
  request: FastifyRequest,
  payload: NodeJS.ReadableStream,
  done: (err: Error | null, body?: unknown) => void,
): void {
  try {
    checkCharset(request.headers['content-type'])
    declaredTooLarge(request)
  } catch (err) {
    done(err as Error)
    return
  }
  readJson(request, payload, done)
}

function readJson(
  request: FastifyRequest,
  payload: NodeJS.ReadableStream,
  done: (err: Error | null, body?: unknown) => void,
): void {
  const execution = request.execution
  // a chunked body the worker parses: kept in the pieces it came in, joined on the thread
  if (execution?.rawBody && execution.declaredBytes === undefined) {
    readRawParts(request, payload, done)
    return
  }
  readLimitedCallback(
    payload,
    request.bodyLimit,
    (err, bytes) => {
      if (err) return done(err)
      // Node ends an HTTP/2 body when the client resets the stream rather than failing it, and does not
      // hold it to its Content-Length: a short body is an abort (or a lying client), never a whole request
      const declared = request.headers['content-length']
      if (declared !== undefined && Number(declared) !== bytes!.length) return done(truncated(request))
      // the decision says the worker parses it: handed over as bytes (an empty body is no body, below)
      if (execution?.rawBody && bytes!.length > 0) return done(null, new RawJson(bytes!))
      const text = bytes!.toString('utf8')
      // an empty body is no body: the route's schema decides whether one was needed (action endpoints need none)
      if (text.length === 0) return done(null, undefined)
      let body: unknown
      try {
        // json/diff and json/patch keep every number exactly as written (src/ops/json/number.ts)
        const op = request.routeConfig.op
        body = parseOpBody(op, text)
      } catch (parseError) {
        return done(
          new AppError('ERR_INVALID_JSON', undefined, locate(text, jsonParseErrorOffset(parseError, text))),
        )
      }
      done(null, body)
    },
    execution?.declaredBytes,
  )
}

function readRawParts(
  request: FastifyRequest,
  payload: NodeJS.ReadableStream,
  done: (err: Error | null, body?: unknown) => void,
): void {
  const parts: Buffer[] = []
  consumeLimitedCallback(
    payload,
    request.bodyLimit,
    (chunk) => parts.push(chunk),
    (err, size) => {
      if (err) return done(err)
      // an empty body is no body, as above
      done(null, size! > 0 ? new RawJson(parts) : undefined)
    },
  )
}

// Binary routes read the stream themselves (hashing it as it arrives); others refuse it.
async function passOctetStream(request: FastifyRequest, payload: NodeJS.ReadableStream): Promise<unknown> {
  if (!request.routeConfig.binary) {
    throw new AppError('ERR_UNSUPPORTED_MEDIA_TYPE', 'This endpoint takes application/json only.')
  }
  declaredTooLarge(request)
  return payload
}

async function bodyParsersPlugin(app: FastifyInstance, options: BodyParserOptions): Promise<void> {
  app.decorateRequest('bodyLimit', options.defaultLimit)
  app.decorateRequest('execution', null)
  app.addHook('preParsing', decideHook(options.admissionWaitMs))
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', parseJsonBody)
  app.addContentTypeParser('application/octet-stream', passOctetStream)
}

export const bodyParsers = fp(bodyParsersPlugin, { name: 'anvil-body-parsers' })
