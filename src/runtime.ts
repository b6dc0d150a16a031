import pino from 'pino'
import type { Config } from './config.ts'
import { openJobs } from './jobs/open.ts'
import type { JobService } from './jobs/service.ts'
import { KeyVerifier } from './keys/verify.ts'
import { type LogSink, openLogSink } from './logger.ts'
import { createMetrics, type Metrics } from './metrics.ts'
import { sourceCommit } from './observability/build-info.ts'
import { registerRedisUp } from './observability/redis-metrics.ts'
import { createDispatcher, type Dispatcher } from './pool/dispatch.ts'
import { createPoolMetrics } from './pool/metrics.ts'
import { createPools, type PoolSet } from './pool/pools.ts'
import { openStore } from './store/open.ts'
import type { Store } from './store/types.ts'

// Everything a gateway process opens at boot, closed in reverse order at shutdown.
export interface Runtime {
  config: Config
  store: Store
  verifier: KeyVerifier
  metrics: Metrics
  logSink: LogSink
  pools: PoolSet
  dispatcher: Dispatcher
  // async jobs: queued on Redis for job workers, or run here (src/jobs/)
  jobs: JobService
  clock: () => number
  close(): Promise<void>
}

export interface RuntimeOverrides {
  store?: Store
  clock?: () => number
}

export async function openRuntime(config: Config, overrides: RuntimeOverrides = {}): Promise<Runtime> {
  const clock = overrides.clock ?? Date.now
  const logSink = openLogSink()
  const storeLog = pino({ level: config.logLevel, base: { component: 'store' } }, logSink.stream)
  const metrics = createMetrics({ commit: sourceCommit(config.commit) })
  // a Redis store keeps Redis TIME as the limiter's clock unless a test injects one
  const store =
    overrides.store ??
    (await openStore(config, {
      ...(overrides.clock ? { clock: overrides.clock } : {}),
      log: (level, message, detail) => storeLog[level](detail, message),
      observer: metrics.redis,
    }))
  registerRedisUp(metrics.registry, store)
  const verifier = new KeyVerifier(store, {
    cacheSize: config.keyCache.size,
    cacheTtlMs: config.keyCache.ttlMs,
    clock,
  })
  const pools = createPools(config.pools)
  const poolMetrics = createPoolMetrics(metrics.registry, () => pools.all())
  const dispatcher = createDispatcher(pools, poolMetrics)
  const jobsLog = pino({ level: config.logLevel, base: { component: 'jobs' } }, logSink.stream)
  const jobs = await openJobs(config, {
    pools,
    registry: metrics.registry,
    clock,
    log: (message, detail) => jobsLog.warn(detail, message),
  })
  return {
    config,
    store,
    verifier,
    metrics,
    logSink,
    pools,
    dispatcher,
    jobs,
    clock,
    async close() {
      verifier.close()
      await jobs.close()
      await pools.close()
      await store.close()
      logSink.flush()
    },
  }
}
