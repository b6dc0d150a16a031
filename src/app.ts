import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { consoleRoutes } from './console/plugin.ts'
import { lazyChildLogger, loggerOptions } from './logger.ts'
import { collectRoutes } from './openapi/collector.ts'
import { auth } from './plugins/auth.ts'
import { bodyParsers } from './plugins/body-parsers.ts'
import { cors } from './plugins/cors.ts'
import { clientErrorHandler, errorsHandling, frameworkErrors } from './plugins/errors.ts'
import { metricsHooks } from './plugins/metrics.ts'
import { genReqId, requestContext } from './plugins/request-id.ts'
import { zodCompiler } from './plugins/zod-compiler.ts'
import { metaRoutes } from './routes/meta.ts'
import { v1Routes } from './routes/v1/index.ts'
import type { Runtime } from './runtime.ts'
import { VERSION } from './version.ts'
import './fastify-augment.ts'

export interface AppOptions {
  tls?: { key: string; cert: string }
  logger?: FastifyServerOptions['logger']
  accessLog?: boolean
}

const MiB = 1024 * 1024

// the keyed API only: the console (a cookie session) and the docs page are never offered cross-origin
const isApiPath = (path: string) => path.startsWith('/v1/')

// The public API: plugins first, then routes. Never listens; server.ts does.
export async function buildApp(runtime: Runtime, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config } = runtime
  const serverOptions: FastifyServerOptions & { http2?: boolean; https?: unknown } = {
    logger: options.logger ?? loggerOptions(config.logLevel, runtime.logSink.stream),
    logController: new Fastify.LogController({ disableRequestLogging: true }),
    genReqId,
    childLoggerFactory: lazyChildLogger,
    requestIdHeader: false,
    trustProxy: config.trustProxy,
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    clientErrorHandler,
    frameworkErrors,
    routerOptions: { maxParamLength: 200 },
  }
  if (options.tls) {
    serverOptions.http2 = true
    serverOptions.https = { allowHTTP1: true, key: options.tls.key, cert: options.tls.cert }
  }
  const app = Fastify(serverOptions as FastifyServerOptions) as unknown as FastifyInstance
  if (options.tls) {
    // the HTTP/1.1 side of the HTTP/2 server: a body that trickles in longer than this is a 408
    // (Node checks these deadlines every connectionsCheckingInterval, so that bounds the lateness)
    Object.assign(app.server, {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: Math.min(30_000, config.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(1_000, config.requestTimeoutMs),
    })
  }

  app.decorate('dispatcher', runtime.dispatcher)
  app.decorate('jobs', runtime.jobs)
  const routes = collectRoutes(app)
  await app.register(requestContext)
  await app.register(errorsHandling)
  // first of the onRequest hooks that decide: a preflight is answered before authentication
  await app.register(cors, { allowedOrigins: config.corsAllowedOrigins, crossOrigin: isApiPath })
  await app.register(zodCompiler)
  await app.register(bodyParsers, { defaultLimit: MiB, admissionWaitMs: config.pools.admissionWaitMs })
  await app.register(auth, {
    store: runtime.store,
    verifier: runtime.verifier,
    plans: config.plans,
    metrics: runtime.metrics,
  })
  await app.register(metricsHooks, { metrics: runtime.metrics, accessLog: options.accessLog ?? true })

  await app.register(metaRoutes, { routes, version: VERSION, ready: () => runtime.store.ready() })
  await app.register(v1Routes)
  await app.register(consoleRoutes, { store: runtime.store, config, clock: runtime.clock })
  return app
}
