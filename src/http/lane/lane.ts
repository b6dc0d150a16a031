import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { startBodyDeadline } from '../body/body-deadline.ts'
import type { CorsOptions } from '../hooks/cors.ts'
import { corsSteps } from '../hooks/cors.ts'
import { type EndpointUsageOptions, endpointUse } from '../hooks/endpoint-usage.ts'
import { boundForwardedFor, overBound } from '../hooks/header-bounds.ts'
import { type KeyActivityOptions, keyUse } from '../hooks/key-activity.ts'
import type { Recorder } from '../hooks/record.ts'
import { compileLane, type Lane } from './compile.ts'
import { decideAndAdmit } from './decide.ts'

export interface LaneOptions {
  // CORS_ALLOWED_ORIGINS and the paths offered to other origins
  cors: CorsOptions
  // REQUEST_TIMEOUT_MS: HTTP/2 bodies get the deadline Node gives HTTP/1.1 ones
  bodyTimeoutMs: number
  // how long a large body may wait, unread, for a place on its full pool before a 503
  admissionWaitMs: number
  // the public listener compresses and slices its answers (answer/answer.ts), records metrics and access lines
  // and marks keys used; the admin listener does none of these
  shapeAnswers: boolean
  recorder?: Recorder
  keyActivity?: KeyActivityOptions
  endpointUsage?: EndpointUsageOptions
}

type Done = (err?: Error) => void

// One lane per request: what the gateway does for a request, in order, is the steps below, run by two
// hooks (enterLane before the body is read, leaveLane once the answer is out) from the route's lane, built
// once when the route registers (compile.ts). Between them Fastify parses the body (src/http/body/parsers.ts),
// zod validates it (src/http/route/zod-compiler.ts) and the route runs and answers (src/http/route/define-route.ts,
// run-op.ts, answer/answer.ts). docs/architecture.md ("A request's path") lists the same steps (test/http/lane/steps.test.ts).
async function lanePlugin(app: FastifyInstance, options: LaneOptions): Promise<void> {
  const { bodyTimeoutMs, admissionWaitMs, recorder } = options
  const cors = corsSteps(app, options.cors)
  const touchKey = options.keyActivity ? keyUse(options.keyActivity) : undefined
  const noteEndpoint = options.endpointUsage ? endpointUse(options.endpointUsage) : undefined
  app.decorateRequest('routeConfig', null as unknown as FastifyRequest['routeConfig'])
  app.decorateRequest('bodyDeadline', null)
  app.decorateRequest('answerCut', null)
  app.decorateRequest('laneLeft', false)

  // after the access plugin's onRoute (which checks and records the route's rule): its lane
  app.addHook('onRoute', function buildLane(route: RouteOptions) {
    const lane = compileLane(route, app.access.ruleOf, options.shapeAnswers)
    lane.series = recorder?.initRoute(route)
    lane.leave = leaveLane
    route.config = { ...route.config, lane }
  })

  app.addHook('onRequest', function enterLane(request, reply, done) {
    // identify: every answer carries Request-Id; the route's config is read once for every later step;
    // X-Forwarded-For cut to the hops that can be trusted before anything reads the client's address
    const config = request.routeOptions.config
    request.routeConfig = config
    reply.header('request-id', request.id)
    boundForwardedFor(request.headers)
    // cors: only when origins are configured; an OPTIONS request is never a route and is answered here
    cors.actual?.(request, reply)
    const lane = config.lane
    if (lane === undefined) {
      if (request.method === 'OPTIONS' && cors.options(request, reply, done)) return
      return done()
    }
    // deadline: an HTTP/2 body gets REQUEST_TIMEOUT_MS, as Node gives HTTP/1.1
    startBodyDeadline(request, reply, bodyTimeoutMs)
    // access: the headers the route reads within their bounds (431 before anything reads them), then the
    // route's declared rule (apiKey: the key from the cache and the limits in one store call)
    const tooLarge = overBound(request.headers, lane.headers)
    if (tooLarge !== undefined) return done(tooLarge)
    const rule = lane.rule
    if (rule === undefined) return done()
    let pending: undefined | Promise<void>
    try {
      pending = rule.check(request, reply)
    } catch (err) {
      return done(err as Error)
    }
    if (pending === undefined) return decide(request, reply, lane, done)
    pending.then(() => decide(request, reply, lane, done), done)
  })

  // decide: where the route's op runs, and a place on the pool before the body is read
  function decide(request: FastifyRequest, reply: FastifyReply, lane: Lane, done: Done): void {
    if (lane.op === undefined) done()
    else decideAndAdmit(request, reply, lane.op, admissionWaitMs, done)
  }

  // once per request: from onResponse, or from cutAnswer (answer/cut.ts) for an answer that never finished
  function leaveLane(request: FastifyRequest, reply: FastifyReply, done: () => void) {
    if (request.laneLeft) return done()
    request.laneLeft = true
    // record: metrics and the access line (an answer cut off after it started, apart); "last used" for the
    // key; the workspace's per-endpoint usage
    const lane = request.routeConfig?.lane
    recorder?.record(request, reply, lane?.series)
    touchKey?.(request)
    noteEndpoint?.(request, reply)
    // settle: what the access rule owes the request (apiKey: a 5xx of ours is refunded, a cut one too)
    const settle = lane?.rule?.settle
    if (settle === undefined) return done()
    settle(request, reply, done)
  }
  app.addHook('onResponse', leaveLane)
}

export const lane = fp(lanePlugin, { name: 'anvil-lane', dependencies: ['anvil-access'] })
