import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { loggerOptions } from '../observability/logger.ts'
import type { Runtime } from '../runtime.ts'
import { adminKeyRoutes } from './admin/keys.ts'
import { adminOpenApi } from './admin/openapi.ts'
import { adminProjectRoutes } from './admin/projects.ts'
import { adminWorkspaceRoutes } from './admin/workspaces.ts'
import { clientErrorHandler, errorsHandling, frameworkErrors } from './answer/error-handler.ts'
import { bodyParsers } from './body/parsers.ts'
import { accessControl } from './hooks/access.ts'
import { adminAuth } from './hooks/admin-auth.ts'
import { adminHost } from './hooks/admin-host.ts'
import { idempotency } from './hooks/idempotency.ts'
import { lane } from './lane/lane.ts'
import { collectRoutes } from './openapi/collector.ts'
import { zodCompiler } from './route/zod-compiler.ts'
import { connectionTimeouts } from './transport/connection-timeouts.ts'
import { genReqId } from './transport/request-id.ts'
import './fastify-augment.ts'

// The internal listener: /metrics (no token) and the admin API (ADMIN_TOKEN). Plain HTTP, loopback by default.
export async function buildAdminApp(
  runtime: Runtime,
  options: { adminToken: string; logger?: FastifyServerOptions['logger'] },
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? loggerOptions(runtime.config.logLevel, runtime.logSink.stream),
    logController: new Fastify.LogController({ disableRequestLogging: true }),
    genReqId,
    requestIdHeader: false,
    clientErrorHandler,
    frameworkErrors,
    forceCloseConnections: 'idle',
  })
  // the same keep-alive, headers and request deadlines as the public listener (Fastify's own default
  // requestTimeout is none)
  Object.assign(app.server, connectionTimeouts(runtime.config))
  const routes = collectRoutes(app)
  // first of all: a request naming a foreign Host goes no further (DNS rebinding)
  await app.register(adminHost, { allowed: runtime.config.adminAllowedHosts })
  await app.register(errorsHandling)
  await app.register(zodCompiler)
  await app.register(bodyParsers, { defaultLimit: 1024 * 1024 })
  await app.register(accessControl)
  await app.register(adminAuth, { token: options.adminToken })
  // the same lane as the public listener's; OPTIONS answers with Allow, and no browser origin may call the
  // admin API; nothing is recorded per request here (the operator's own calls)
  await app.register(lane, {
    cors: { allowedOrigins: [], crossOrigin: () => false },
    bodyTimeoutMs: runtime.config.requestTimeoutMs,
    admissionWaitMs: 0,
    shapeAnswers: false,
  })
  await app.register(idempotency, {
    store: runtime.store,
    ttlSeconds: runtime.config.idempotencyTtlSeconds,
    maxAnswerBytes: runtime.config.idempotencyMaxAnswerBytes,
    maxScopeBytes: runtime.config.idempotencyMaxScopeBytes,
  })

  // Prometheus scrapes without a token: the listener is internal and its Host is checked
  app.get('/metrics', { config: { security: 'none' } }, async function metrics(_request, reply) {
    const registry = runtime.metrics.registry
    return reply.type(registry.contentType).send(await registry.metrics())
  })
  const adminOptions = { store: runtime.store, plans: runtime.config.plans, clock: runtime.clock }
  await app.register(adminWorkspaceRoutes, adminOptions)
  await app.register(adminKeyRoutes, adminOptions)
  await app.register(adminProjectRoutes, adminOptions)
  await app.register(adminOpenApi, { routes })
  return app
}
