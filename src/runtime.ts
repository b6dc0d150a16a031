import pino from 'pino'
import { KeyActivity } from './accounts/key-activity.ts'
import { openAccountStore } from './accounts/store/open.ts'
import type { AccountStore } from './accounts/store/types.ts'
import type { Config } from './config.ts'
import { createDispatcher, type Dispatcher } from './exec/dispatch.ts'
import { openPools } from './exec/open.ts'
import type { PoolSet } from './exec/pools.ts'
import { openJobs } from './jobs/open.ts'
import type { JobService } from './jobs/service.ts'
import { InvalidKeyLimiter } from './keys/invalid-key-limiter.ts'
import { KeyVerifier } from './keys/verify.ts'
import { sourceCommit } from './observability/build-info.ts'
import { type LogSink, openLogSink } from './observability/logger.ts'
import { createMetrics, type Metrics } from './observability/metrics.ts'
import { registerRedisUp } from './observability/redis-metrics.ts'
import { openStore } from './store/open.ts'
import type { Store } from './store/types.ts'

// client addresses the invalid-key limiter tracks at once (least recently seen forgotten first): ~10 MB
const INVALID_KEY_ADDRESSES = 100_000

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
  // the console's accounts and sessions (Redis when configured, like the store), and the API keys'
  // "last used" times the gateway records into it
  accounts: AccountStore
  keyActivity: KeyActivity
  clock: () => number
  // /readyz: the store and the account store answer
  ready(): Promise<boolean>
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
    negativeCacheSize: config.keyCache.negativeSize,
    negativeCacheTtlMs: config.keyCache.negativeTtlMs,
    limiter: new InvalidKeyLimiter({ ...config.invalidKeys, addresses: INVALID_KEY_ADDRESSES }),
    clock,
  })
  const { pools, metrics: poolMetrics } = openPools(config.pools, metrics.registry)
  const dispatcher = createDispatcher(pools, poolMetrics)
  const jobsLog = pino({ level: config.logLevel, base: { component: 'jobs' } }, logSink.stream)
  const jobs = await openJobs(config, {
    pools,
    registry: metrics.registry,
    clock,
    log: (message, detail) => jobsLog.warn(detail, message),
  })
  const accounts = await openAccountStore(config, { clock, observer: metrics.redis })
  const keyActivity = new KeyActivity(accounts)
  return {
    config,
    store,
    verifier,
    metrics,
    logSink,
    pools,
    dispatcher,
    jobs,
    accounts,
    keyActivity,
    clock,
    async ready() {
      const [storeReady, accountsReady] = await Promise.all([store.ready(), accounts.ready()])
      return storeReady && accountsReady
    },
    async close() {
      verifier.close()
      await keyActivity.close()
      await accounts.close()
      await jobs.close()
      await pools.close()
      await store.close()
      logSink.flush()
    },
  }
}
