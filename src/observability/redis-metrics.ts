import { Counter, Gauge, Histogram, type Registry } from 'prom-client'
import type { RedisErrorKind, RedisObserver } from '../store/redis/instrument.ts'
import type { Store } from '../store/types.ts'
import { cross, zeroCounter } from './zero.ts'

// Sub-millisecond up to the 500 ms command timeout and a little past it (a timed-out command lands there).
const BUCKETS = [0.0002, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1]

// Redis command latency and errors as the gateway sees them. `command` is a Redis command name or one of
// the store's Lua scripts: a fixed, small set.
export function createRedisMetrics(registry: Registry): RedisObserver {
  const duration = new Histogram({
    name: 'anvil_redis_command_duration_seconds',
    help: 'Redis command latency measured on the client (queueing, network, Redis), by command or Lua script',
    labelNames: ['command'],
    buckets: BUCKETS,
    registers: [registry],
  })
  const errors = new Counter({
    name: 'anvil_redis_errors_total',
    help: 'Redis commands that failed: timeout, connection (unreachable, closed, not ready) or other (a reply error)',
    labelNames: ['kind'],
    registers: [registry],
  })
  // at 0 from boot (on the embedded store too, where it stays 0): the error ratio reads 0, not "no data"
  zeroCounter(errors, cross({ kind: ['timeout', 'connection', 'other'] }))
  // every command passes here: resolve each label set once
  const children = new Map<string, { observe(v: number): void }>()
  return {
    command(name, seconds) {
      let child = children.get(name)
      if (!child) {
        child = duration.labels(name)
        children.set(name, child)
      }
      child.observe(seconds)
    },
    error(kind: RedisErrorKind) {
      errors.inc({ kind })
    },
  }
}

// 1 while the Redis store is connected, subscribed to invalidations and answering PING; asked at scrape
// time. Absent with the embedded store, so a Redis alert never fires where there is no Redis.
export function registerRedisUp(registry: Registry, store: Store): void {
  if (store.kind !== 'redis') return
  new Gauge({
    name: 'anvil_redis_up',
    help: 'Whether the Redis store is ready (connected, subscribed, answering PING), checked at scrape',
    registers: [registry],
    async collect() {
      this.set((await store.ready()) ? 1 : 0)
    },
  })
}
