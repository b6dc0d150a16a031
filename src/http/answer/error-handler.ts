import { constants as h2, type ServerHttp2Stream } from 'node:http2'
import type { Socket } from 'node:net'
import type {
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
} from 'fastify'
import fp from 'fastify-plugin'
import FindMyWay, { type HTTPMethod } from 'find-my-way'
import { AppError, ERRORS, errorBody } from '../../errors.ts'
import { newRequestId } from '../transport/request-id.ts'
import { answerJson } from './answer.ts'
import { cutAnswer } from './cut.ts'
import { toAppError } from './error-mapping.ts'

// One error wrapper for every path: thrown errors, unknown routes (404), known paths with the wrong
// method (405 with Allow), and failures below Fastify on the raw socket (timeouts, bad HTTP).
async function errorsPlugin(app: FastifyInstance): Promise<void> {
  const methods = FindMyWay({ ignoreTrailingSlash: false })
  const seen = new Set<string>()
  app.addHook('onRoute', function indexRouteMethods(route) {
    for (const m of [route.method].flat()) {
      const id = `${m} ${route.url}`
      if (seen.has(id) || !route.url) continue
      seen.add(id)
      methods.on(m as HTTPMethod, route.url, () => {})
    }
  })

  app.setErrorHandler(function sendError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    if (clientAborted(error, request)) {
      // the client hung up before its request was read: nothing failed here and no one reads the answer
      request.log.debug({ code: (error as NodeJS.ErrnoException).code }, 'request aborted by the client')
      return reply
        .code(400)
        .type('application/json')
        .send(errorBody('ERR_BAD_REQUEST', 'The client closed the request before it was read.'))
    }
    if (reply.raw.headersSent) {
      // the answer had started: it can only be broken off, and is recorded, logged and settled once as a cut
      // answer (answer/cut.ts), never as a 500 nobody receives
      cutAnswer(request, reply, error)
      return
    }
    closeInsteadOnHttp2(request, reply)
    // refused before the lane's first step (the admin listener's Host check) or after it: the same header
    if (!reply.hasHeader('request-id')) reply.header('request-id', request.id)
    const appError = toAppError(error, request.bodyLimit)
    const status = ERRORS[appError.code].status
    // a fault is logged with its cause; refusals for load or an unreachable store (503) are expected
    // outcomes, counted by the metrics rather than a line per request when thousands a second are shed
    if (status >= 500 && status !== 503)
      request.log.error({ err: error, code: appError.code }, 'request failed')
    if (appError.headers) reply.headers(appError.headers)
    if ((status === 503 || status === 429) && !reply.hasHeader('retry-after'))
      reply.header('retry-after', '1')
    const message = status >= 500 && appError.code === 'ERR_INTERNAL' ? undefined : appError.message
    return answerJson(
      request,
      reply,
      status,
      JSON.stringify(errorBody(appError.code, message, appError.details)),
    )
  })

  app.setNotFoundHandler(function sendNotFound(request) {
    const path = request.url.split('?')[0] ?? '/'
    const allowed: string[] = []
    for (const m of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const) {
      if (methods.find(m, path)) allowed.push(m)
    }
    if (allowed.length > 0) {
      throw new AppError(
        'ERR_METHOD_NOT_ALLOWED',
        `Use ${allowed.join(', ')} on this path.`,
        { allowed },
        {
          allow: allowed.join(', '),
        },
      )
    }
    throw new AppError('ERR_NOT_FOUND', `No route for ${request.method} ${path}.`)
  })
}

export const errorsHandling = fp(errorsPlugin, { name: 'anvil-errors' })

const ABORT_CODES = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_HTTP2_STREAM_ERROR',
])

// Node fails the body stream with "aborted" (ECONNRESET) when the client closes the connection or resets
// the HTTP/2 stream mid-body: an abort, not a fault.
function clientAborted(error: FastifyError, request: FastifyRequest): boolean {
  if (error instanceof AppError) return false
  const raw = request.raw as { aborted?: boolean; readableAborted?: boolean }
  return raw.aborted === true || raw.readableAborted === true || ABORT_CODES.has(String(error.code))
}

// Refusals that leave the body unread ask for `Connection: close` (Fastify's body parser errors, the pool
// admission's 503): on HTTP/2 that header does not exist (RFC 9113 §8.2.2; Node drops it with a warning).
// There the stream is reset with NO_ERROR once the answer is out, which stops the upload (§8.1) and
// leaves the connection's other streams alone.
function closeInsteadOnHttp2(request: FastifyRequest, reply: FastifyReply): void {
  const stream = (request.raw as { stream?: ServerHttp2Stream }).stream
  if (!stream || !reply.hasHeader('connection')) return
  reply.removeHeader('connection')
  if (request.raw.complete) return
  reply.raw.once('finish', function resetUnreadStream() {
    if (!stream.destroyed) stream.close(h2.NGHTTP2_NO_ERROR)
  })
}

const CLIENT_ERRORS: Record<string, { status: number; code: keyof typeof ERRORS; text: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'ERR_REQUEST_TIMEOUT', text: 'Request Timeout' },
  HPE_HEADER_OVERFLOW: { status: 431, code: 'ERR_HEADER_TOO_LARGE', text: 'Request Header Fields Too Large' },
}

// Node's 'clientError': the request never reached Fastify, so the envelope is written on the socket.
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return
  const row = (err.code && CLIENT_ERRORS[err.code]) || {
    status: 400,
    code: 'ERR_BAD_REQUEST',
    text: 'Bad Request',
  }
  const message =
    row.status === 431 ? 'The request headers are larger in all than this API reads (16 KiB).' : undefined
  const body = JSON.stringify(errorBody(row.code, message))
  if (!socket.writable) {
    socket.destroy(err)
    return
  }
  // ended, not destroyed: on TLS a destroy right after the write can drop the answer before it is
  // encrypted and sent (the client reads a reset); a client that never reads is cut off by the timeout
  socket.end(
    `HTTP/1.1 ${row.status} ${row.text}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRequest-Id: ${newRequestId()}\r\nConnection: close\r\n\r\n${body}`,
  )
  socket.setTimeout(CLIENT_ERROR_LINGER_MS, () => socket.destroy())
}

// how long a refused connection may take to read its answer before it is destroyed
const CLIENT_ERROR_LINGER_MS = 5_000

// Failures Fastify meets while routing, before any hook runs (a malformed %-escape, an over-long path
// parameter): same envelope, same Request-Id header.
export const frameworkErrors: FastifyServerOptions['frameworkErrors'] = function sendFrameworkError(
  error,
  request,
  reply,
) {
  const code = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'ERR_URI_TOO_LONG' : 'ERR_BAD_REQUEST'
  const message = code === 'ERR_BAD_REQUEST' ? 'The URL is malformed.' : undefined
  void (reply as unknown as FastifyReply)
    .code(ERRORS[code].status)
    .header('request-id', request.id)
    .type('application/json')
    .send(errorBody(code, message))
}
