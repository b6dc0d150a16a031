import type { FastifyInstance } from 'fastify'
import { AppError } from '../../errors.ts'
import type { ConsoleDeps } from '../context.ts'
import { checkCsrfToken, checkOrigin } from '../csrf.ts'
import { accountRoutes } from './account.ts'
import { keyRoutes } from './keys.ts'
import { projectRoutes } from './projects.ts'
import { workspaceRoutes } from './workspaces.ts'

// console bodies are a few form fields; nothing here needs the gateway's 1 MiB default
const CONSOLE_BODY_LIMIT = 16 * 1024
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

// The console's JSON API (/console/api): same envelopes and error table as /v1, cookie sessions
// instead of API keys. Every write passes the Origin check; every route marked sessionCookie needs a
// signed-in user, and its writes the session's CSRF token. All of it before a body byte is read.
export async function consoleApi(app: FastifyInstance, { deps }: { deps: ConsoleDeps }): Promise<void> {
  app.addHook('onRequest', async function guardConsoleApi(request) {
    request.bodyLimit = CONSOLE_BODY_LIMIT
    const write = !SAFE_METHODS.has(request.method)
    if (write) checkOrigin(request)
    if (request.routeConfig.doc?.security !== 'sessionCookie') return
    if (!request.consoleAuth) throw new AppError('ERR_UNAUTHORIZED', 'Sign in to the console first.')
    if (write) checkCsrfToken(request, request.consoleAuth.session.csrf_token)
  })

  await app.register(accountRoutes, { deps })
  await app.register(workspaceRoutes, { deps })
  await app.register(projectRoutes, { deps })
  await app.register(keyRoutes, { deps })
}
