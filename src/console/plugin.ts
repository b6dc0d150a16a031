import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config.ts'
import type { Store } from '../store/types.ts'
import { selfSignedCertPath } from '../tls.ts'
import { consoleAssets } from './assets.ts'
import type { ConsoleDeps } from './context.ts'
import type { KeyActivity } from './key-activity.ts'
import { consolePages } from './pages/index.ts'
import { consoleApi } from './routes/index.ts'
import { clearedSessionCookie, readSessionToken, SessionManager, sessionCookie } from './session.ts'
import type { AccountStore } from './store/types.ts'

export interface ConsoleOptions {
  store: Store
  config: Config
  clock: () => number
  // opened and closed by the runtime (src/runtime.ts), like every connection the process holds
  accounts: AccountStore
  activity: KeyActivity
}

// No inline script or style anywhere in the console: the one script and stylesheet come from
// /console/assets; SVG charts use presentation attributes and classes only.
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ')

function securityHeaders(_request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  reply.headers({
    'content-security-policy': CONTENT_SECURITY_POLICY,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'cross-origin-opener-policy': 'same-origin',
    'cache-control': 'no-store',
    // the console is only ever served over TLS: browsers keep to HTTPS for it (two years). The JSON API
    // does not send it: its clients are programs, and it would be bytes on every small response.
    'strict-transport-security': 'max-age=63072000',
  })
  done()
}

// Everything under /console, in its own encapsulated context: its hooks never run on /v1 routes.
async function consoleScope(app: FastifyInstance, { deps }: { deps: ConsoleDeps }): Promise<void> {
  app.decorateRequest('consoleAuth', null)
  app.addHook('onRequest', securityHeaders)
  app.addHook('onRequest', async function loadSession(request, reply) {
    const token = readSessionToken(request.headers.cookie)
    if (!token) return
    const resumed = await deps.sessions.resume(token)
    const user = resumed && (await deps.accounts.getUser(resumed.session.user_id))
    if (!resumed || !user) {
      reply.header('set-cookie', clearedSessionCookie())
      return
    }
    request.consoleAuth = {
      user: { id: user.id, email: user.email, created_at: user.created_at },
      session: resumed.session,
    }
    if (resumed.renewedMaxAge !== null)
      reply.header('set-cookie', sessionCookie(token, resumed.renewedMaxAge))
  })

  const assets = await consoleAssets(app)
  await app.register(consoleApi, { prefix: '/api', deps })
  await app.register(consolePages, { deps, assets })
}

// The developer console: accounts, workspaces, projects, environments, keys and usage, served at
// /console. Keys' "last used" times are recorded by a hook of the app (src/plugins/key-activity.ts).
async function consolePlugin(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  const { store, config, clock, accounts, activity } = options
  const deps: ConsoleDeps = {
    store,
    accounts,
    sessions: new SessionManager(accounts, clock),
    activity,
    plans: config.plans,
    defaultPlan: config.defaultPlan,
    maxWorkspaces: config.consoleMaxWorkspaces,
    clock,
    caCertPath: config.tls ? null : selfSignedCertPath(config.dataDir),
  }

  await app.register(consoleScope, { prefix: '/console', deps })
}

export const consoleRoutes = fp(consolePlugin, { name: 'anvil-console' })
