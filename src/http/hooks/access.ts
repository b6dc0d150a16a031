import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import type { AccessOutcome, Tracing } from '../../tracing/types.ts'

// The access rules a route can declare. apiKey: an API key allowed the route's family; sessionCookie:
// a signed-in console session (and its CSRF token on writes); admin: Bearer ADMIN_TOKEN; none: anyone.
export const SECURITY = ['apiKey', 'sessionCookie', 'admin', 'none'] as const
export type Security = (typeof SECURITY)[number]

export interface AccessRule {
  // throws the refusal (an AppError) or rejects with it; returns (or resolves) when the request may go on.
  // A rule that can decide at once returns undefined: no promise on the hot path (the apiKey rule on a
  // cached key and the embedded store)
  check: (request: FastifyRequest, reply: FastifyReply) => undefined | Promise<void>
  // what else a route declaring this rule must declare (apiKey: its family); a message fails the boot
  validate?: (route: RouteOptions) => string | undefined
  // once the answer is out (the lane's last step): what the rule owes the request afterwards (apiKey: the
  // refund of a charge the gateway's own failure did not earn). Calls done when finished; synchronously
  // when there is nothing to do
  settle?: (request: FastifyRequest, reply: FastifyReply, done: () => void) => void
}

export interface DeclaredRoute {
  method: string
  url: string
  security: Security
}

export interface AccessControl {
  // called by the plugin that owns a rule, before any route declaring it is registered
  provide(security: Exclude<Security, 'none'>, rule: AccessRule): void
  // every route of this listener with the rule it declared, as registered (the security tests walk it)
  readonly routes: readonly DeclaredRoute[]
  // the rule a route declared (undefined for `none`), as the lane runs it (src/http/lane/compile.ts)
  ruleOf(security: Security): AccessRule | undefined
}

const kScopeSecurity = Symbol('anvil.scopeSecurity')

// For routes a third-party plugin registers (which cannot be given a config): every route registered
// inside `scope` and its children that declares nothing gets `security`. Call it before registering.
export function declareScopeSecurity(scope: FastifyInstance, security: Security): void {
  ;(scope as unknown as Record<symbol, Security>)[kScopeSecurity] = security
}

export interface AccessOptions {
  // when tracing is on: every rule's check runs inside the request's authentication span (off, the rules
  // are used as provided, with nothing around them)
  tracing?: Tracing
}

// what the rule decided, for the span: the workspace and the limits decision of an accepted API key (set
// by the apiKey rule, even when the limits refused the request)
function accessOutcome(request: FastifyRequest): AccessOutcome {
  const auth = request.auth
  const decision = auth?.decision
  return {
    workspaceId: auth?.workspace.id,
    limits: decision ? { allowed: decision.allowed, reason: decision.reason ?? undefined } : undefined,
  }
}

// Deny by default, decided on the matched route: every route must declare `config.security` (a route
// that does not fails to register, so the server does not boot), and the lane's access step, after routing,
// enforces the declared rule (src/http/lane/lane.ts). Nothing is decided from the raw URL, so no spelling of
// a path (percent escapes, case, slashes) can reach a route without passing its rule. Register before any
// route, and before the lane (src/http/lane/lane.ts), which takes each route's rule from here.
async function accessPlugin(app: FastifyInstance, options: AccessOptions): Promise<void> {
  const { tracing } = options
  const rules = new Map<Security, AccessRule>()
  const routes: DeclaredRoute[] = []
  app.decorate('access', {
    provide(security, rule) {
      if (rules.has(security)) throw new Error(`access rule ${security} is provided twice`)
      rules.set(
        security,
        tracing ? { ...rule, check: tracing.traceAccess(security, rule.check, accessOutcome) } : rule,
      )
    },
    routes,
    ruleOf: (security) => (security === 'none' ? undefined : rules.get(security)),
  } satisfies AccessControl)

  app.addHook('onRoute', function requireDeclaredSecurity(route) {
    const inherited = (this as unknown as Record<symbol, Security | undefined>)[kScopeSecurity]
    const security = route.config?.security ?? inherited
    const name = `${[route.method].flat().join(',')} ${route.url}`
    if (security === undefined || !SECURITY.includes(security)) {
      throw new Error(`${name} declares no access rule: set config.security (${SECURITY.join(', ')})`)
    }
    const rule = rules.get(security)
    if (security !== 'none' && !rule) {
      throw new Error(`${name} declares security ${security}, which this listener does not provide`)
    }
    const problem = rule?.validate?.(route)
    if (problem) throw new Error(`${name}: ${problem}`)
    route.config = { ...route.config, security }
    for (const method of [route.method].flat()) routes.push({ method, url: route.url, security })
  })
}

export const accessControl = fp(accessPlugin, { name: 'anvil-access' })
