import type { IncomingHttpHeaders } from 'node:http'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { HEADER_BOUNDS, withinBound } from '../../lib/header-bounds.ts'
import type { Tracing } from '../../tracing/types.ts'
import { toAppError } from '../answer/error-mapping.ts'
import { boundForwardedFor } from './header-bounds.ts'

// what a client controls is cut to this many characters before it becomes a span attribute
const MAX_ATTRIBUTE = 512

function header(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined
}

// The caller's trace context, each header read only within its bound; over it, absent, as W3C Trace Context
// has a header that cannot be parsed (a new trace; a tracestate of more than 32 members is discarded whole).
// Without a traceparent the tracestate is not read either.
export function traceContext(headers: IncomingHttpHeaders): { traceparent?: string; tracestate?: string } {
  const traceparent = header(headers.traceparent)
  if (traceparent === undefined || !withinBound(traceparent, HEADER_BOUNDS.traceparent)) return {}
  const tracestate = header(headers.tracestate)
  return tracestate !== undefined && withinBound(tracestate, HEADER_BOUNDS.tracestate)
    ? { traceparent, tracestate }
    : { traceparent }
}

// One server span per request, continuing the caller's W3C `traceparent`/`tracestate`, named after the
// matched route's pattern (never the raw URL). The answer carries `traceresponse` (W3C Trace Context
// Level 2): the trace id and the id of this server span, so a client can find its request's trace.
// Registered only when tracing is on (src/http/app.ts): off, no request pays for any of this.
async function tracePlugin(app: FastifyInstance, options: { tracing: Tracing }): Promise<void> {
  const { tracing } = options
  app.decorateRequest('trace', null)

  app.addHook('onRequest', function traceRequest(request, reply, done) {
    const raw = request.raw
    // this hook reads the client's address before the lane does: the lane's bound applies first here
    boundForwardedFor(request.headers)
    const { traceparent, tracestate } = traceContext(request.headers)
    const trace = tracing.startRequest({
      method: request.method,
      route: request.routeOptions.url,
      path: (raw.url?.split('?', 1)[0] ?? '/').slice(0, MAX_ATTRIBUTE),
      traceparent,
      tracestate,
      clientAddress: request.ip,
      httpVersion: raw.httpVersion,
      userAgent: header(request.headers['user-agent'])?.slice(0, MAX_ATTRIBUTE),
      requestId: request.id,
    })
    request.trace = trace
    reply.header('traceresponse', trace.traceresponse)
    // the access rule's store calls (key lookup, limits) run next, in this context
    trace.enter()
    done()
  })

  // the body arrived on stream events, outside the request's context: enter it again for the handler
  app.addHook('preHandler', function resumeTrace(request, _reply, done) {
    request.trace?.enter()
    done()
  })

  app.addHook('onError', function traceError(request, _reply, error, done) {
    request.trace?.fail(toAppError(error, request.bodyLimit).code, error)
    done()
  })

  app.addHook('onResponse', function endTrace(request, reply, done) {
    // a client that hung up got no answer, whatever status the reply object holds
    const aborted = (request.raw as { aborted?: boolean }).aborted === true
    request.trace?.end(aborted ? undefined : reply.statusCode, request.auth?.workspace.id)
    done()
  })

  app.addHook('onRequestAbort', function traceAbort(request, done) {
    request.trace?.end(undefined, request.auth?.workspace.id)
    done()
  })
}

export const traceRequests = fp(tracePlugin, { name: 'anvil-trace' })
