import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify'
import fp from 'fastify-plugin'
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

// CORS for the API: a preflight is answered here, in the first onRequest hook, before authentication (a
// browser never sends credentials on a preflight) and before any route could answer 405; actual responses,
// errors included, carry Access-Control-Allow-Origin for an allowed origin. Credentials are never allowed,
// so the console's session cookie cannot make a cross-origin read succeed. See docs/decisions.md.
async function corsPlugin(app: FastifyInstance, options: CorsOptions): Promise<void> {
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

  // callback-style, like every hook on the hot path: an async hook costs a promise per request
  app.addHook('onRequest', function cors(request: FastifyRequest, reply: FastifyReply, done) {
    // with no origins configured (the default) an actual request costs this one comparison
    if (request.method !== 'OPTIONS' && !enabled) return done()
    const path = request.url.split('?', 1)[0] ?? '/'
    const origin = request.headers.origin
    if (request.method !== 'OPTIONS') {
      if (!crossOrigin(path)) return done()
      // the answer depends on Origin whenever origins are listed: caches must keep them apart
      if (!any) reply.header('vary', withVary(reply.getHeader('vary'), 'Origin'))
      const allowed = allowOrigin(origin, path)
      if (allowed) {
        reply.header('access-control-allow-origin', allowed)
        reply.header('access-control-expose-headers', EXPOSE_HEADERS)
      }
      return done()
    }
    // OPTIONS is answered for every path that exists, never with 405; an unknown path stays a 404
    const methods = methodsFor(path)
    if (methods.length === 0) return done()
    const allow = [...methods, 'OPTIONS'].join(', ')
    reply.header('allow', allow)
    const preflight = origin !== undefined && request.headers['access-control-request-method'] !== undefined
    // answered here: the remaining hooks and the route never run (done is not called)
    if (!preflight) return void reply.code(204).send()
    if (!any) reply.header('vary', 'Origin')
    const allowed = allowOrigin(origin, path)
    if (!allowed) {
      return done(
        new AppError(
          'ERR_CORS_ORIGIN',
          crossOrigin(path)
            ? `The origin ${origin} may not call this API from a browser.`
            : `${path} is not available to other origins.`,
          { origin },
        ),
      )
    }
    reply.header('access-control-allow-origin', allowed)
    reply.header('access-control-allow-methods', methods.join(', '))
    reply.header('access-control-allow-headers', ALLOW_HEADERS)
    reply.header('access-control-max-age', MAX_AGE)
    reply.code(204).send()
  })
}

export const cors = fp(corsPlugin, { name: 'anvil-cors' })
