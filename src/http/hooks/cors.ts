import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify'
import { AppError } from '../../errors.ts'
import type { AllowedOrigins } from '../../lib/origins.ts'

export interface CorsOptions {
  // origins whose pages may read responses of `crossOrigin` paths; "*" any; empty: none
  allowedOrigins: AllowedOrigins
  // which paths are offered to other origins at all (the keyed API: /v1); never the cookie-session console
  crossOrigin: (path: string) => boolean
}

// Headers a browser may send on a cross-origin call (beyond the CORS-safelisted ones); the W3C trace
// context ones let a traced web page continue its trace here.
const ALLOW_HEADERS = 'Authorization, Content-Type, Idempotency-Key, Request-Id, Traceparent, Tracestate'
// Response headers a cross-origin page may read (the safelisted ones, Content-Type etc., always are).
const EXPOSE_HEADERS =
  'RateLimit, RateLimit-Policy, Request-Id, Retry-After, Server-Timing, Idempotent-Replayed, Location, ' +
  'Traceresponse'
// Chromium caps a cached preflight at 2 h (Firefox at 24 h): asking for more buys nothing.
const MAX_AGE = '7200'
const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']

function withVary(current: unknown, name: string): string {
  const list = current === undefined ? '' : String(current)
  if (list.split(',').some((v) => v.trim().toLowerCase() === name.toLowerCase() || v.trim() === '*'))
    return list
  return list ? `${list}, ${name}` : name
}

export interface Cors {
  // actual (non-OPTIONS) requests, when origins are configured: Vary and the allow headers of an allowed
  // origin; undefined when none are (the default), so a request pays nothing for CORS
  actual: ((request: FastifyRequest, reply: FastifyReply) => void) | undefined
  // an OPTIONS request (never a route: it reaches the lane unmatched): answers 204 with Allow, a preflight
  // from an allowed origin 204 with the CORS headers, from any other origin 403 ERR_CORS_ORIGIN (through
  // done); false for a path that does not exist, which stays a 404
  options(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): boolean
}

// CORS for the API, as two steps of the lane's first hook (src/http/lane/lane.ts): a preflight is answered
// before authentication (a browser never sends credentials on a preflight) and before any route could answer
// 405; actual responses, errors included, carry Access-Control-Allow-Origin for an allowed origin. Credentials
// are never allowed, so the console's session cookie cannot make a cross-origin read succeed. See
// docs/decisions.md.
export function corsSteps(app: FastifyInstance, options: CorsOptions): Cors {
  const { allowedOrigins, crossOrigin } = options
  const any = allowedOrigins === '*'
  const listed = new Set(any ? [] : allowedOrigins)
  const enabled = any || listed.size > 0

  function allowOrigin(origin: string | undefined, path: string): string | undefined {
    if (!enabled || origin === undefined || !crossOrigin(path)) return undefined
    if (any) return '*'
    return listed.has(origin) ? origin : undefined
  }

  function methodsFor(path: string): string[] {
    return METHODS.filter((method) => app.findRoute({ method, url: path }) !== null)
  }

  function corsHeaders(request: FastifyRequest, reply: FastifyReply): void {
    const path = request.url.split('?', 1)[0] ?? '/'
    if (!crossOrigin(path)) return
    // the answer depends on Origin whenever origins are listed: caches must keep them apart
    if (!any) reply.header('vary', withVary(reply.getHeader('vary'), 'Origin'))
    const allowed = allowOrigin(request.headers.origin, path)
    if (allowed) {
      reply.header('access-control-allow-origin', allowed)
      reply.header('access-control-expose-headers', EXPOSE_HEADERS)
    }
  }

  function answerOptions(request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): boolean {
    const path = request.url.split('?', 1)[0] ?? '/'
    const origin = request.headers.origin
    // OPTIONS is answered for every path that exists, never with 405; an unknown path stays a 404
    const methods = methodsFor(path)
    if (methods.length === 0) return false
    const allow = [...methods, 'OPTIONS'].join(', ')
    reply.header('allow', allow)
    const preflight = origin !== undefined && request.headers['access-control-request-method'] !== undefined
    // answered here: the rest of the lane and the route never run (done is not called)
    if (!preflight) {
      reply.code(204).send()
      return true
    }
    if (!any) reply.header('vary', 'Origin')
    const allowed = allowOrigin(origin, path)
    if (!allowed) {
      done(
        new AppError(
          'ERR_CORS_ORIGIN',
          crossOrigin(path)
            ? `The origin ${origin} may not call this API from a browser.`
            : `${path} is not available to other origins.`,
          { origin },
        ),
      )
      return true
    }
    reply.header('access-control-allow-origin', allowed)
    reply.header('access-control-allow-methods', methods.join(', '))
    reply.header('access-control-allow-headers', ALLOW_HEADERS)
    reply.header('access-control-max-age', MAX_AGE)
    reply.code(204).send()
    return true
  }

  return { actual: enabled ? corsHeaders : undefined, options: answerOptions }
}
