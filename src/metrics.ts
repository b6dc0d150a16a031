import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client'
import { registerEventLoopUtilization } from './observability/event-loop.ts'
import { createRedisMetrics } from './observability/redis-metrics.ts'
import type { RedisObserver } from './store/redis/instrument.ts'

export interface Metrics {
  registry: Registry
  requests: Counter<'route' | 'method' | 'status_class' | 'plan'>
  duration: Histogram<'route' | 'method' | 'status_class' | 'plan'>
  authFailures: Counter<'reason'>
  limitRefusals: Counter<'reason' | 'plan'>
  keyCache: Counter<'result'>
  chargeRefunds: Counter
  // handed to the Redis store, which reports each command's latency and failures through it
  redis: RedisObserver
}

// A process's registry with what every Anvil process reports: Node's default metrics and event-loop
// utilization (the gateway and the job worker both start from it).
export function createProcessRegistry(): Registry {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'anvil_' })
  registerEventLoopUtilization(registry)
  return registry
}

// One registry per process; labels are bounded (route patterns, plans, reasons), never ids.
export function createMetrics(): Metrics {
  const registry = createProcessRegistry()
  const labelNames = ['route', 'method', 'status_class', 'plan'] as const
  return {
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
    redis: createRedisMetrics(registry),
  }
}
