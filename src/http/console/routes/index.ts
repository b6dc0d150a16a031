import type { FastifyInstance } from 'fastify'
import type { ConsoleDeps } from '../context.ts'
import { checkOrigin } from '../csrf.ts'
import { accountRoutes } from './account.ts'
import { accountSettingsRoutes } from './account-settings.ts'
import { deleteRoutes } from './deletes.ts'
import { keyRoutes } from './keys.ts'
import { projectRoutes } from './projects.ts'
import { renameRoutes } from './renames.ts'
import { workspaceRoutes } from './workspaces.ts'

// console bodies are a few form fields; nothing here needs the gateway's 1 MiB default
const CONSOLE_BODY_LIMIT = 16 * 1024
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

// The console's JSON API (/console/api): same envelopes and error table as /v1, cookie sessions
// instead of API keys. Every route marked sessionCookie needs a signed-in user, and its writes the
// session's CSRF token (the access hook, src/http/console/session-rule.ts); every write, also to the routes
// open to all (sign-up, sign-in), passes the Origin check. All of it before a body byte is read.
export async function consoleApi(app: FastifyInstance, { deps }: { deps: ConsoleDeps }): Promise<void> {
  app.addHook('onRequest', async function guardConsoleApi(request) {
    request.bodyLimit = CONSOLE_BODY_LIMIT
    if (!SAFE_METHODS.has(request.method)) checkOrigin(request)
  })

  await app.register(accountRoutes, { deps })
  await app.register(workspaceRoutes, { deps })
  await app.register(projectRoutes, { deps })
  await app.register(keyRoutes, { deps })
  await app.register(renameRoutes, { deps })
  await app.register(deleteRoutes, { deps })
  await app.register(accountSettingsRoutes, { deps })
}
