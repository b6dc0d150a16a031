import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { trustProxyOption } from '../lib/trust-proxy.ts'
import { VERSION } from '../lib/version.ts'
import { accessLog as createAccessLog } from '../observability/access-log.ts'
import { lazyChildLogger, loggerOptions } from '../observability/logger.ts'
import type { Runtime } from '../runtime.ts'
import { clientErrorHandler, errorsHandling, frameworkErrors } from './answer/error-handler.ts'
import { bodyParsers } from './body/parsers.ts'
import { CONSOLE_RESPONSE_HEADERS, consoleRoutes } from './console/plugin.ts'
import { accessControl } from './hooks/access.ts'
import { auth } from './hooks/authenticate.ts'
import { idempotency } from './hooks/idempotency.ts'
import { recorder } from './hooks/record.ts'
import { traceRequests } from './hooks/trace.ts'
import { lane } from './lane/lane.ts'
import { landingRoutes } from './meta/landing.ts'
import { metaRoutes } from './meta/meta.ts'
import { collectRoutes } from './openapi/collector.ts'
import type { ListenerHeaders } from './openapi/headers.ts'
import { zodCompiler } from './route/zod-compiler.ts'
import { connectionTimeouts } from './transport/connection-timeouts.ts'
import { answerPlainHttp } from './transport/plain-http.ts'
import { genReqId } from './transport/request-id.ts'
import { v1Routes } from './v1/index.ts'
import './fastify-augment.ts'

export interface AppOptions {
  tls?: { key: string; cert: string }
  logger?: FastifyServerOptions['logger']
  accessLog?: boolean
}

const MiB = 1024 * 1024

// the keyed API only: the console (a cookie session) and the docs page are never offered cross-origin
const isApiPath = (path: string) => path.startsWith('/v1/')

// What the plugins below add to answers, for the OpenAPI document: the CORS headers on the API paths,
// Traceresponse (documented whether or not this gateway traces: the document is the product's), the
// compression headers, and the console scope's own headers.
const DOCUMENTED_HEADERS: ListenerHeaders = {
  crossOrigin: isApiPath,
  tracing: true,
  compression: true,
  pathHeaders: (path) => (path.startsWith('/console/') ? CONSOLE_RESPONSE_HEADERS : []),
}

// The public API: plugins first, then routes. Never listens; src/main/gateway.ts does.
export async function buildApp(runtime: Runtime, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config } = runtime
  const serverOptions: FastifyServerOptions & {
    http2?: boolean
    https?: unknown
    http2SessionTimeout?: number
  } = {
    logger: options.logger ?? loggerOptions(config.logLevel, runtime.logSink.stream),
    logController: new Fastify.LogController({ disableRequestLogging: true }),
    genReqId,
    childLoggerFactory: lazyChildLogger,
    requestIdHeader: false,
    trustProxy: trustProxyOption(config.trustProxy),
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    clientErrorHandler,
    frameworkErrors,
    routerOptions: { maxParamLength: 200 },
    // an idle HTTP/2 session is closed (GOAWAY) after the same time as an idle HTTP/1.1 connection
    http2SessionTimeout: config.keepAliveTimeoutMs,
  }
  if (options.tls) {
    serverOptions.http2 = true
    // Nagle off, as Node's own HTTP servers have it by default and its HTTP/2 server does not: with it on, an
    // answer's last partial segment waited for the client's delayed ACK, ~40 ms added to 6 of 8 streamed
    // 15 MiB minify answers (docs/decisions.md, "Transport")
    serverOptions.https = {
      allowHTTP1: true,
      key: options.tls.key,
      cert: options.tls.cert,
      noDelay: true,
    }
  }
  const app = Fastify(serverOptions as FastifyServerOptions) as unknown as FastifyInstance
  // the HTTP/1.1 side of the HTTP/2 server: keep-alive fit for a load balancer, a body that trickles in
  // longer than REQUEST_TIMEOUT_MS is a 408 (HTTP/2 streams get the same deadline from bodyDeadline)
  if (options.tls) {
    const timeouts = connectionTimeouts(config)
    Object.assign(app.server, timeouts)
    // plain HTTP sent to this TLS port is answered with the https URL to use, not an empty reply
    answerPlainHttp(app, { firstByteTimeoutMs: timeouts.headersTimeout })
  }

  app.decorate('dispatcher', runtime.dispatcher)
  app.decorate('streams', runtime.streams)
  app.decorate('jobs', runtime.jobs)
  const routes = collectRoutes(app)
  // only when tracing is on (OTEL_EXPORTER_OTLP_ENDPOINT): off, no hook is registered at all
  if (runtime.tracing) await app.register(traceRequests, { tracing: runtime.tracing })
  await app.register(errorsHandling)
  await app.register(zodCompiler)
  await app.register(bodyParsers, { defaultLimit: MiB })
  // before any route: every route must declare its access rule, which the lane enforces after routing
  await app.register(accessControl, runtime.tracing ? { tracing: runtime.tracing } : {})
  await app.register(auth, {
    store: runtime.store,
    verifier: runtime.verifier,
    plans: config.plans,
    metrics: runtime.metrics,
  })
  // the request's path: two hooks run each route's steps (src/http/lane/lane.ts)
  await app.register(lane, {
    cors: { allowedOrigins: config.corsAllowedOrigins, crossOrigin: isApiPath },
    bodyTimeoutMs: config.requestTimeoutMs,
    admissionWaitMs: config.pools.admissionWaitMs,
    shapeAnswers: true,
    recorder: recorder({
      metrics: runtime.metrics,
      accessLog: (options.accessLog ?? true) ? createAccessLog(app.log) : undefined,
    }),
    keyActivity: { activity: runtime.keyActivity, clock: runtime.clock },
    endpointUsage: { recorder: runtime.endpointUsage, clock: runtime.clock },
  })
  // hooks of its own on each route that declares it, and on no other
  await app.register(idempotency, {
    store: runtime.store,
    ttlSeconds: config.idempotencyTtlSeconds,
    maxAnswerBytes: config.idempotencyMaxAnswerBytes,
    maxScopeBytes: config.idempotencyMaxScopeBytes,
  })

  await app.register(metaRoutes, {
    routes,
    catalog: runtime.catalog,
    version: VERSION,
    ready: () => runtime.ready(),
    headers: DOCUMENTED_HEADERS,
  })
  await app.register(landingRoutes, { version: VERSION })
  await app.register(v1Routes, { catalog: runtime.catalog })
  await app.register(consoleRoutes, {
    store: runtime.store,
    config,
    clock: runtime.clock,
    accounts: runtime.accounts,
    activity: runtime.keyActivity,
    endpointUsage: runtime.endpointUsage,
    jobs: runtime.jobs,
  })
  return app
}
