import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import { PLAN_NAMES } from '../limits/plans.ts'
import type { RedisObserver } from '../store/redis/instrument.ts'
import { registerBuildInfo } from './build-info.ts'
import { registerEventLoopUtilization } from './event-loop.ts'
import { createRedisMetrics } from './redis-metrics.ts'
import { TopKeys } from './top-keys.ts'
import { cross, zeroCounter } from './zero.ts'

export interface Metrics {
  registry: Registry
  requests: Counter<'route' | 'method' | 'status_class' | 'plan'>
  duration: Histogram<'route' | 'method' | 'status_class' | 'plan'>
  authFailures: Counter<'reason'>
  limitRefusals: Counter<'reason' | 'plan'>
  keyCache: Counter<'result'>
  chargeRefunds: Counter
  answersCut: Counter<'route' | 'code'>
  // password verifications by outcome (ok: answered; refused: any error), and the keys that verify the most
  // (watched as a login endpoint is: one key trying many passwords stands out)
  passwordVerifications: Counter<'outcome' | 'plan'>
  verifyKeys: TopKeys
  // handed to the Redis store, which reports each command's latency and failures through it
  redis: RedisObserver
}

// Failure reasons every gateway exports from boot, at 0 until the first one (src/observability/zero.ts).
export const AUTH_FAILURE_REASONS = [
  'missing',
  'malformed',
  'unknown',
  'revoked',
  'expired',
  'scope',
  'throttled',
] as const
export const LIMIT_REFUSAL_REASONS = ['rate', 'quota'] as const
export const VERIFY_OUTCOMES = ['ok', 'refused'] as const

// A process's registry with what every Anvil process reports (the gateway and the job worker both start
// from it): prom-client's default metrics under their standard unprefixed names (process_*, nodejs_*) so
// stock Node.js dashboards and alerts work unchanged, anvil_build_info, and event-loop utilization.
export function createProcessRegistry(commit = 'unknown'): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  registerBuildInfo(registry, commit)
  registerEventLoopUtilization(registry)
  return registry
}

// One registry per process; labels are bounded (route patterns, plans, reasons), never ids.
export function createMetrics(options: { commit?: string } = {}): Metrics {
  const registry = createProcessRegistry(options.commit)
  const labelNames = ['route', 'method', 'status_class', 'plan'] as const
  const metrics: Metrics = {
    registry,
    requests: new Counter({
      name: 'anvil_http_requests_total',
      help: 'API requests answered, by route pattern, method, status class and plan',
      labelNames,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'anvil_http_request_duration_seconds',
      help: 'API request duration from arrival to response, by route pattern, method, status class and plan',
      labelNames,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    authFailures: new Counter({
      name: 'anvil_auth_failures_total',
      help: 'Requests refused by authentication or key scope, by reason',
      labelNames: ['reason'],
      registers: [registry],
    }),
    limitRefusals: new Counter({
      name: 'anvil_limit_refusals_total',
      help: 'Requests refused by rate caps or monthly quotas',
      labelNames: ['reason', 'plan'],
      registers: [registry],
    }),
    keyCache: new Counter({
      name: 'anvil_key_cache_lookups_total',
      help: 'API key verifications by in-process cache result',
      labelNames: ['result'],
      registers: [registry],
    }),
    chargeRefunds: new Counter({
      name: 'anvil_charge_refunds_total',
      help: 'Admitted requests the gateway then failed itself (5xx), given back to the quota and usage',
      registers: [registry],
    }),
    // neither a success nor a 5xx: counted here, not in anvil_http_requests_total (src/http/answer/cut.ts)
    answersCut: new Counter({
      name: 'anvil_http_answers_cut_total',
      help: 'Answers broken off after they started (the client got part of one), by route and the code the failure would have answered',
      labelNames: ['route', 'code'],
      registers: [registry],
    }),
    redis: createRedisMetrics(registry),
    passwordVerifications: new Counter({
      name: 'anvil_password_verifications_total',
      help: 'POST /v1/password/verify requests answered, by outcome (ok, refused) and plan',
      labelNames: ['outcome', 'plan'],
      registers: [registry],
    }),
    verifyKeys: new TopKeys({ outcomes: VERIFY_OUTCOMES }),
  }
  const verifyKeys = metrics.verifyKeys
  new Gauge({
    name: 'anvil_password_verify_key_rate',
    help:
      'Password verifications per second over the last minute, for the 10 API keys (by id) that verify the most ' +
      'and key_id="other" for the rest: a bounded set of label values at any scrape',
    labelNames: ['key_id', 'outcome'],
    registers: [registry],
    collect() {
      this.reset()
      for (const { keyId, perSecond } of verifyKeys.rates()) {
        VERIFY_OUTCOMES.forEach((outcome, i) => {
          this.set({ key_id: keyId, outcome }, perSecond[i]!)
        })
      }
    },
  })
  zeroCounter(metrics.authFailures, cross({ reason: AUTH_FAILURE_REASONS }))
  zeroCounter(metrics.limitRefusals, cross({ reason: LIMIT_REFUSAL_REASONS, plan: PLAN_NAMES }))
  zeroCounter(metrics.keyCache, cross({ result: ['hit', 'miss'] }))
  zeroCounter(metrics.passwordVerifications, cross({ outcome: VERIFY_OUTCOMES, plan: PLAN_NAMES }))
  return metrics
}
