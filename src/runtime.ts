import pino from 'pino'
import { KeyActivity } from './accounts/key-activity.ts'
import { openAccountStore } from './accounts/store/open.ts'
import type { AccountStore } from './accounts/store/types.ts'
import type { Config } from './config.ts'
import { createDispatcher, type Dispatcher } from './exec/dispatch.ts'
import { openPools } from './exec/open.ts'
import type { PoolSet } from './exec/pools.ts'
import { createStreamRunner, type StreamRunner } from './exec/stream-run.ts'
import { openJobs } from './jobs/open.ts'
import type { JobService } from './jobs/service.ts'
import { InvalidKeyLimiter } from './keys/invalid-key-limiter.ts'
import { KeyVerifier } from './keys/verify.ts'
import { VERSION } from './lib/version.ts'
import { sourceCommit } from './observability/build-info.ts'
import { errorSerializers } from './observability/log-errors.ts'
import { type LogSink, openLogSink } from './observability/logger.ts'
import { createMetrics, type Metrics } from './observability/metrics.ts'
import { registerRedisUp } from './observability/redis-metrics.ts'
import { openTracing } from './observability/tracing/open.ts'
import type { Tracing } from './observability/tracing/types.ts'
import { openStore, redisTarget } from './store/open.ts'
import type { Store } from './store/types.ts'

// client addresses the invalid-key limiter tracks at once (least recently seen forgotten first): ~10 MB
const INVALID_KEY_ADDRESSES = 100_000
// store look-ups an address over the invalid-key limit may still spend per window on keys that turn out
// invalid (valid ones cost nothing): a misconfigured script's few bad keys do not lock out the valid keys
// of everyone behind the same address (src/keys/invalid-key-limiter.ts)
const INVALID_KEY_LOOKUPS = 5

// Everything a gateway process opens at boot, closed in reverse order at shutdown.
export interface Runtime {
  config: Config
  store: Store
  verifier: KeyVerifier
  metrics: Metrics
  logSink: LogSink
  pools: PoolSet
  dispatcher: Dispatcher
  // raw bodies streamed chunk by chunk to a thread of the plan's pool (nothing to close: its tasks are
  // the pools')
  streams: StreamRunner
  // async jobs: queued on Redis for job workers, or run here (src/jobs/)
  jobs: JobService
  // the console's accounts and sessions (Redis when configured, like the store), and the API keys'
  // "last used" times the gateway records into it
  accounts: AccountStore
  keyActivity: KeyActivity
  // OpenTelemetry tracing, when an OTLP endpoint is configured (the store, dispatcher, stream runner and
  // jobs above are then its traced decorators; src/http/hooks/trace.ts opens a span per request, and the
  // access plugin wraps its rules in an authentication span)
  tracing: Tracing | undefined
  clock: () => number
  // /readyz: the store and the account store answer, and the pools' boot threads are warm
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
  const storeLog = pino(
    { level: config.logLevel, base: { component: 'store' }, serializers: errorSerializers },
    logSink.stream,
  )
  const metrics = createMetrics({ commit: sourceCommit(config.commit) })
  // first, so that everything opened after it can be traced; undefined (and never imported) when off
  const tracingLog =
    config.tracing &&
    pino(
      { level: config.logLevel, base: { component: 'tracing' }, serializers: errorSerializers },
      logSink.stream,
    )
  const tracing = await openTracing(config.tracing, 'anvil-gateway', VERSION, (level, message, detail) =>
    tracingLog?.[level](detail, message),
  )
  // a Redis store keeps Redis TIME as the limiter's clock unless a test injects one
  const untracedStore =
    overrides.store ??
    (await openStore(config, {
      ...(overrides.clock ? { clock: overrides.clock } : {}),
      log: (level, message, detail) => storeLog[level](detail, message),
      observer: metrics.redis,
    }))
  const store = tracing
    ? tracing.traceStore(untracedStore, redisTarget(config) ? 'redis' : 'embedded')
    : untracedStore
  registerRedisUp(metrics.registry, store)
  const verifier = new KeyVerifier(store, {
    cacheSize: config.keyCache.size,
    cacheTtlMs: config.keyCache.ttlMs,
    negativeCacheSize: config.keyCache.negativeSize,
    negativeCacheTtlMs: config.keyCache.negativeTtlMs,
    limiter: new InvalidKeyLimiter({
      ...config.invalidKeys,
      addresses: INVALID_KEY_ADDRESSES,
      lookups: INVALID_KEY_LOOKUPS,
    }),
    clock,
  })
  const { pools, metrics: poolMetrics } = openPools(config.pools, metrics.registry)
  const untracedDispatcher = createDispatcher(pools, poolMetrics)
  const dispatcher = tracing ? tracing.traceDispatcher(untracedDispatcher) : untracedDispatcher
  const untracedStreams = createStreamRunner(pools, poolMetrics, {
    admissionWaitMs: config.pools.admissionWaitMs,
  })
  const streams = tracing ? tracing.traceStreams(untracedStreams) : untracedStreams
  const jobsLog = pino(
    { level: config.logLevel, base: { component: 'jobs' }, serializers: errorSerializers },
    logSink.stream,
  )
  const untracedJobs = await openJobs(config, {
    pools,
    registry: metrics.registry,
    clock,
    log: (message, detail) => jobsLog.warn(detail, message),
    ...(tracing ? { traceCarrier: () => tracing.carrier() } : {}),
  })
  const jobs = tracing ? tracing.traceJobs(untracedJobs) : untracedJobs
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
    streams,
    jobs,
    accounts,
    keyActivity,
    tracing,
    clock,
    async ready() {
      const [storeReady, accountsReady] = await Promise.all([store.ready(), accounts.ready()])
      return storeReady && accountsReady && pools.warm()
    },
    async close() {
      verifier.close()
      await keyActivity.close()
      await accounts.close()
      await jobs.close()
      await pools.close()
      await store.close()
      // last: the spans of everything closed above are exported before it stops
      await tracing?.shutdown()
      logSink.flush()
    },
  }
}
