import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import { loggerOptions } from './logger.ts'
import { adminAuth } from './plugins/admin-auth.ts'
import { bodyParsers } from './plugins/body-parsers.ts'
import { cors } from './plugins/cors.ts'
import { clientErrorHandler, errorsHandling, frameworkErrors } from './plugins/errors.ts'
import { genReqId, requestContext } from './plugins/request-id.ts'
import { zodCompiler } from './plugins/zod-compiler.ts'
import { adminKeyRoutes } from './routes/admin/keys.ts'
import { adminWorkspaceRoutes } from './routes/admin/workspaces.ts'
import type { Runtime } from './runtime.ts'
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
  await app.register(requestContext)
  await app.register(errorsHandling)
  // OPTIONS answers with Allow; no browser origin may call the admin API
  await app.register(cors, { allowedOrigins: [], crossOrigin: () => false })
  await app.register(zodCompiler)
  await app.register(bodyParsers, { defaultLimit: 1024 * 1024, admissionWaitMs: 0 })
  await app.register(adminAuth, { token: options.adminToken })

  app.get('/metrics', async function metrics(_request, reply) {
    const registry = runtime.metrics.registry
    return reply.type(registry.contentType).send(await registry.metrics())
  })
  const adminOptions = { store: runtime.store, plans: runtime.config.plans, clock: runtime.clock }
  await app.register(adminWorkspaceRoutes, adminOptions)
  await app.register(adminKeyRoutes, adminOptions)
  return app
}
