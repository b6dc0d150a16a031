import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { AppError } from '../../errors.ts'
import type { KeyVerification, KeyVerifier } from '../../keys/verify.ts'
import { effectiveLimits, type PlanLimits, type PlanTable } from '../../limits/plans.ts'
import { batchedChild } from '../../observability/batched-counter.ts'
import type { Metrics } from '../../observability/metrics.ts'
import type { Store, Workspace } from '../../store/types.ts'
import { limitCharger } from './charge-limits.ts'
import { storeUnavailable } from './store-unavailable.ts'

export interface AuthOptions {
  store: Store
  verifier: KeyVerifier
  plans: PlanTable
  metrics: Metrics
}

const BEARER = /^Bearer[ ]+(\S+)\s*$/i
// a key's characters, and nothing else, after `Bearer `: the form every client sends
const PLAIN_KEY = /^Bearer [0-9A-Za-z_]+$/
// HTTP Basic (RFC 7617) with the key as the user name, as Stripe takes it (`curl -u <key>:`)
const BASIC = /^Basic[ ]+([A-Za-z0-9+/]+={0,2})\s*$/i

// The key a request carries: undefined when it carries none, '' when its Authorization header is not a
// form that holds one (verifyNow answers both as a missing key; missingKey() then says what was seen).
function credential(header: string | undefined): string | undefined {
  if (!header) return undefined
  if (PLAIN_KEY.test(header)) return header.slice(7)
  const bearer = BEARER.exec(header)
  if (bearer) return bearer[1]
  const basic = BASIC.exec(header)
  if (!basic) return ''
  // the user name; the password is not read (Stripe's rule: the key alone authenticates)
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon === -1 ? decoded : decoded.slice(0, colon)
}

const KEY_LIKE = /\banvil_(live|test)_/

// A request without a usable key: what it sent instead, when it sent something, so a key in the wrong
// place is not answered as if there were none (only on this refusal's path).
function missingKey(request: FastifyRequest): AppError {
  const auth = request.headers.authorization
  const refuse = (message: string, foundIn: string) =>
    new AppError('ERR_MISSING_API_KEY', message, { found_in: foundIn })
  const send =
    'send Authorization: Bearer <key> (or HTTP Basic with the key as the user name: curl -u <key>:)'
  if (auth) {
    const [scheme = '', rest] = auth.split(/[ ]+/, 2)
    if (rest === undefined && !/^(bearer|basic)$/i.test(scheme))
      // one word and no scheme: a key, or some other secret, which is never echoed
      return refuse(
        `The Authorization header holds ${KEY_LIKE.test(scheme) ? 'a key' : 'a value'} without its scheme: ${send}.`,
        'authorization',
      )
    if (/^bearer$/i.test(scheme))
      return refuse(
        `The Authorization header says Bearer, but what follows is not a key: ${send}.`,
        'authorization',
      )
    if (/^basic$/i.test(scheme))
      return refuse(
        'The HTTP Basic credentials hold no key as their user name: the key is the user name, the password empty (curl -u <key>:).',
        'authorization',
      )
    // a scheme's name is echoed only when it looks like one (a word), never what could be a credential
    const named = /^[A-Za-z][A-Za-z0-9-]{0,19}$/.test(scheme) ? `the ${JSON.stringify(scheme)}` : 'a'
    return refuse(
      `The Authorization header uses ${named} scheme, which this API does not take: ${send}.`,
      'authorization',
    )
  }
  for (const name of ['x-api-key', 'api-key', 'apikey', 'x-auth-token']) {
    const value = request.headers[name]
    if (value !== undefined)
      return refuse(`An API key was sent in the ${name} header, which this API does not read: ${send}.`, name)
  }
  return new AppError('ERR_MISSING_API_KEY')
}

// Too many invalid keys from this address (per gateway, see src/keys/invalid-key-limiter.ts).
function invalidKeyThrottled(reply: FastifyReply, retryAfter: number): AppError {
  reply.header('retry-after', String(retryAfter))
  return new AppError('ERR_RATE_LIMITED', 'Too many requests with an invalid API key from this address.', {
    policy: 'invalid_key',
    retry_after_seconds: retryAfter,
  })
}

// The `apiKey` access rule, run on the matched route before any body byte is read: the key (format,
// checksum, cache, store) → its scope (family, address, paid-only) → the plan's limits; then
// charge-limits.ts charges them in one store call.
async function authPlugin(app: FastifyInstance, options: AuthOptions): Promise<void> {
  const { store, verifier, plans, metrics } = options
  const charger = limitCharger(store, metrics)
  app.decorateRequest('auth', null)
  // keyed by the cached workspace object, which is replaced whenever the store says it changed
  const limitsOf = new WeakMap<Workspace, PlanLimits>()
  // every request counts one of these: resolve the label sets once
  const cacheHit = batchedChild(metrics.keyCache, { result: 'hit' })
  const cacheMiss = batchedChild(metrics.keyCache, { result: 'miss' })

  // the `apiKey` access rule: the access hook (src/http/hooks/access.ts) calls this on every route that
  // declares it, with the family the route declared beside it. Synchronous (undefined) when the key is in
  // the cache and the store decides in memory; a promise only when the store must be asked.
  function authenticate(request: FastifyRequest, reply: FastifyReply): undefined | Promise<void> {
    const family = request.routeConfig.family
    if (!family) throw new AppError('ERR_KEY_SCOPE', 'This route declares no family.')
    const raw = credential(request.headers.authorization)
    const known = verifier.verifyNow(raw, request.ip)
    if (known !== undefined) return admit(request, reply, family, known)
    return verifier.verify(raw, request.ip).then(
      (result) => admit(request, reply, family, result),
      () => {
        throw storeUnavailable()
      },
    )
  }

  // the key's verification → its scope → the plan's limits → the one limit decision
  function admit(
    request: FastifyRequest,
    reply: FastifyReply,
    family: string,
    result: KeyVerification,
  ): undefined | Promise<void> {
    ;(result.cached ? cacheHit : cacheMiss).inc()
    if (!result.valid) {
      metrics.authFailures.inc({ reason: result.reason })
      if (result.reason === 'throttled') throw invalidKeyThrottled(reply, result.retryAfter)
      reply.header('www-authenticate', 'Bearer realm="anvil"')
      throw result.reason === 'missing' ? missingKey(request) : new AppError('ERR_INVALID_API_KEY')
    }
    const { key, workspace } = result.lookup
    if (!verifier.permits(result, family, request.ip)) {
      metrics.authFailures.inc({ reason: 'scope' })
      // say which of the key's two restrictions refused: its families, or its source addresses
      const families = key.families
      if (families && families.length > 0 && !(families as readonly string[]).includes(family)) {
        throw new AppError(
          'ERR_KEY_SCOPE',
          `This key may not call the ${family} family; it may call ${families.join(', ')}.`,
          { family, reason: 'family', allowed_families: [...families] },
        )
      }
      throw new AppError(
        'ERR_KEY_SCOPE',
        `This key may not be used from ${request.ip}: that address is outside the key's allowed source addresses.`,
        { family, reason: 'address', address: request.ip },
      )
    }
    if (request.routeConfig.paidOnly && workspace.plan === 'free') {
      metrics.authFailures.inc({ reason: 'scope' })
      throw new AppError('ERR_KEY_SCOPE', `The ${family} family needs a paid plan.`, { family, plan: 'free' })
    }
    let limits = limitsOf.get(workspace)
    if (!limits) {
      limits = effectiveLimits(plans, workspace.plan, workspace.overrides)
      limitsOf.set(workspace, limits)
    }
    const binary = request.headers['content-type']?.startsWith('application/octet-stream') === true
    request.bodyLimit = binary ? limits.max_binary_bytes : limits.max_json_bytes
    return charger.charge(request, reply, { key, workspace, limits })
  }
  app.access.provide('apiKey', {
    check: authenticate,
    validate: (route) => (route.config?.family ? undefined : 'an apiKey route must declare its family'),
    // a 5xx the gateway answered after charging is refunded (charge-limits.ts)
    settle: charger.refundOwnFailure,
  })
}

export const auth = fp(authPlugin, {
  name: 'anvil-auth',
  dependencies: ['anvil-body-parsers', 'anvil-access'],
})
