import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { KeyActivity } from '../../accounts/key-activity.ts'
import { SessionManager } from '../../accounts/session.ts'
import type { AccountStore } from '../../accounts/store/types.ts'
import type { Config } from '../../config.ts'
import type { JobService } from '../../jobs/service.ts'
import type { EndpointUsageRecorder } from '../../store/endpoint-usage.ts'
import type { Store } from '../../store/types.ts'
import type { HeaderName } from '../openapi/headers.ts'
import { selfSignedCertPath } from '../transport/tls.ts'
import { consoleAssets } from './assets.ts'
import type { ConsoleDeps } from './context.ts'
import { consolePages } from './pages/index.ts'
import { consoleApi } from './routes/index.ts'
import { type ConsoleSession, consoleSession } from './session-rule.ts'

export interface ConsoleOptions {
  store: Store
  config: Config
  clock: () => number
  // opened and closed by the runtime (src/runtime.ts), like every connection the process holds
  accounts: AccountStore
  activity: KeyActivity
  // what each workspace's jobs keep, for its usage page; its jobs in flight, which a delete waits for
  jobs: Pick<JobService, 'storedBytes' | 'list'>
  endpointUsage: EndpointUsageRecorder
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

const SECURITY_HEADERS: [string, string][] = [
  ['content-security-policy', CONTENT_SECURITY_POLICY],
  ['x-content-type-options', 'nosniff'],
  ['x-frame-options', 'DENY'],
  ['referrer-policy', 'same-origin'],
  ['cross-origin-opener-policy', 'same-origin'],
  ['cache-control', 'no-store'],
  // the console is only ever served over TLS: browsers keep to HTTPS for it (two years). The JSON API
  // does not send it: its clients are programs, and it would be bytes on every small response.
  ['strict-transport-security', 'max-age=63072000'],
]

// The headers every answer under /console may carry, for the OpenAPI document: these, and the session
// cookie that loadSession renews or clears on any request
export const CONSOLE_RESPONSE_HEADERS: readonly HeaderName[] = [
  'Set-Cookie',
  'Content-Security-Policy',
  'X-Content-Type-Options',
  'X-Frame-Options',
  'Referrer-Policy',
  'Cross-Origin-Opener-Policy',
  'Cache-Control',
  'Strict-Transport-Security',
]

// Set when the response is sent, so they are on every console response, also a refusal of the access
// hook (which runs before this scope's hooks); a header a handler chose (an asset's cache-control) stays.
function securityHeaders(
  _request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (err: null, payload: unknown) => void,
): void {
  for (const [name, value] of SECURITY_HEADERS) if (!reply.hasHeader(name)) reply.header(name, value)
  done(null, payload)
}

// Everything under /console, in its own encapsulated context: its hooks never run on /v1 routes.
async function consoleScope(
  app: FastifyInstance,
  { deps, session }: { deps: ConsoleDeps; session: ConsoleSession },
): Promise<void> {
  app.decorateRequest('consoleAuth', null)
  app.addHook('onSend', securityHeaders)
  // pages and routes open to all (sign-in, sign-up) also need to know who is signed in
  app.addHook('onRequest', function loadSession(request, reply) {
    return session.load(request, reply)
  })

  const assets = await consoleAssets(app, deps.caCertPath)
  await app.register(consoleApi, { prefix: '/api', deps })
  await app.register(consolePages, { deps, assets })
}

// The developer console: accounts, workspaces, projects, environments, keys and usage, served at
// /console. Keys' "last used" times are recorded by a hook of the app (src/http/hooks/key-activity.ts).
async function consolePlugin(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  const { store, config, clock, accounts, activity, endpointUsage, jobs } = options
  const deps: ConsoleDeps = {
    store,
    jobs,
    accounts,
    sessions: new SessionManager(accounts, clock),
    activity,
    endpointUsage,
    plans: config.plans,
    defaultPlan: config.consolePlan,
    maxWorkspaces: config.consoleMaxWorkspaces,
    clock,
    caCertPath: config.tls ? null : selfSignedCertPath(config.dataDir),
  }

  const session = consoleSession(deps)
  app.access.provide('sessionCookie', session.rule)

  await app.register(consoleScope, { prefix: '/console', deps, session })
}

export const consoleRoutes = fp(consolePlugin, {
  name: 'anvil-console',
  dependencies: ['anvil-access'],
})
