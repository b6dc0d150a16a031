import pino from 'pino'
import type { Registry } from 'prom-client'
import { KeyActivity } from './accounts/key-activity.ts'
import { openAccountStore } from './accounts/store/open.ts'
import type { AccountStore } from './accounts/store/types.ts'
import { type Config, jobsRedisTarget, redisTarget } from './config.ts'
import { createDispatcher, type Dispatcher } from './exec/dispatch.ts'
import { openPools } from './exec/open.ts'
import type { PoolSet } from './exec/pools.ts'
import { createStreamRunner, type StreamRunner } from './exec/stream-run.ts'
import { type JobsSettings, openJobConsumer, openJobs, workerConcurrency } from './jobs/open.ts'
import type { Consumer, JobLog } from './jobs/redis/consumer.ts'
import type { JobService } from './jobs/service.ts'
import { InvalidKeyLimiter } from './keys/invalid-key-limiter.ts'
import { KeyVerifier } from './keys/verify.ts'
import { VERSION } from './lib/version.ts'
import { sourceCommit } from './observability/build-info.ts'
import { errorSerializers } from './observability/log-errors.ts'
import { type LogSink, openLogSink } from './observability/logger.ts'
import { createMetrics, createProcessRegistry, type Metrics } from './observability/metrics.ts'
import { createRedisMetrics, registerRedisUp } from './observability/redis-metrics.ts'
import { CATALOG, type Catalog } from './ops/catalog.ts'
import { EndpointUsageRecorder } from './store/endpoint-usage.ts'
import { openStore, type StoreSettings } from './store/open.ts'
import type { RedisTarget } from './store/redis/client.ts'
import type { Store } from './store/types.ts'
import { openTracing } from './tracing/open.ts'
import type { Tracing } from './tracing/types.ts'

// client addresses the invalid-key limiter tracks at once (least recently seen forgotten first): ~10 MB
const INVALID_KEY_ADDRESSES = 100_000
// store look-ups an address over the invalid-key limit may still spend per window on keys that turn out
// invalid (valid ones cost nothing): a misconfigured script's few bad keys do not lock out the valid keys
// of everyone behind the same address (src/keys/invalid-key-limiter.ts)
const INVALID_KEY_LOOKUPS = 5

// Everything a gateway process opens at boot, closed in reverse order at shutdown.
export interface Runtime {
  config: Config
  // the operations this gateway serves (src/ops/catalog.ts): its routes, costs and job kinds
  catalog: Catalog
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
  // each workspace's answers and latencies per endpoint, for the console's usage page, batched into the store
  endpointUsage: EndpointUsageRecorder
  // OpenTelemetry tracing, when an OTLP endpoint is configured (the store, dispatcher, stream runner and
  // jobs above are then its traced decorators; src/http/hooks/trace.ts opens a span per request, and the
  // access plugin wraps its rules in an authentication span)
  tracing: Tracing | undefined
  clock: () => number
  // /readyz: the store and the account store answer, and the pools' boot threads are warm
  ready(): Promise<boolean>
  close(): Promise<void>
}

// What the jobs take of the configuration, in either process: their Redis is JOBS_REDIS_URL's when set,
// else the store's (then shared with the limits).
function jobsSettings(config: Config, redis: RedisTarget | undefined): JobsSettings {
  return {
    jobs: config.jobs,
    threads: { paid: config.pools.paid.threads, free: config.pools.free.threads },
    redis,
    sharedWithLimits: config.jobsRedisUrl === undefined,
    dataDir: config.dataDir,
  }
}

export interface RuntimeOverrides {
  store?: Store
  clock?: () => number
  // the built-in operations and a test's own (catalogWith)
  catalog?: Catalog
}

export async function openRuntime(config: Config, overrides: RuntimeOverrides = {}): Promise<Runtime> {
  const clock = overrides.clock ?? Date.now
  const catalog = overrides.catalog ?? CATALOG
  // where state lives, decided once from the configuration and handed to the store, accounts and jobs
  const where: StoreSettings = {
    redis: redisTarget(config),
    redisCommandTimeoutMs: config.redisCommandTimeoutMs,
    dataDir: config.dataDir,
  }
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
    (await openStore(where, {
      ...(overrides.clock ? { clock: overrides.clock } : {}),
      log: (level, message, detail) => storeLog[level](detail, message),
      observer: metrics.redis,
    }))
  const store = tracing
    ? tracing.traceStore(untracedStore, where.redis ? 'redis' : 'embedded')
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
  const { pools, metrics: poolMetrics } = openPools(config.pools, metrics.registry, catalog)
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
  const untracedJobs = await openJobs(jobsSettings(config, jobsRedisTarget(config)), {
    pools,
    catalog,
    registry: metrics.registry,
    clock,
    log: (message, detail) => jobsLog.warn(detail, message),
    ...(tracing ? { traceCarrier: () => tracing.carrier() } : {}),
  })
  const jobs = tracing ? tracing.traceJobs(untracedJobs) : untracedJobs
  const accounts = await openAccountStore(where, { clock, observer: metrics.redis })
  const keyActivity = new KeyActivity(accounts)
  const endpointUsage = new EndpointUsageRecorder(store)
  return {
    config,
    catalog,
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
    endpointUsage,
    tracing,
    clock,
    async ready() {
      const [storeReady, accountsReady] = await Promise.all([store.ready(), accounts.ready()])
      return storeReady && accountsReady && pools.warm()
    },
    async close() {
      verifier.close()
      await keyActivity.close()
      await endpointUsage.close()
      await accounts.close()
      await jobs.close()
      await pools.close()
      await store.close()
      // last: the spans of everything closed above are exported before it stops
      await tracing?.shutdown()
      await logSink.flush()
    },
  }
}

// Everything a job worker process (`npm run worker`, src/main/job-worker.ts) opens at boot, closed in
// reverse order at shutdown: the gateway's process metrics and pools, and the consumers of the gateways'
// Redis queues that run each job on those pools. The composition root of the second process; the admin
// CLI (src/main/admin-cli.ts) opens nothing of its own (it calls a gateway's admin API).
export interface WorkerRuntime {
  config: Config
  // the Redis the jobs are queued on (the gateways' own)
  target: RedisTarget
  registry: Registry
  pools: PoolSet
  consumer: Consumer
  // jobs run at once, per queue
  concurrency: { paid: number; free: number }
  tracing: Tracing | undefined
  // stop taking jobs, let running ones finish for up to graceMs (the rest go back to the queue), close
  close(graceMs: number): Promise<void>
}

export async function openWorkerRuntime(
  config: Config,
  target: RedisTarget,
  log: JobLog,
): Promise<WorkerRuntime> {
  // OTLP export when configured; undefined (and the SDK never imported) otherwise
  const tracing = await openTracing(config.tracing, 'anvil-job-worker', VERSION, (level, message, detail) =>
    log(level, message, detail),
  )
  const registry = createProcessRegistry(sourceCommit(config.commit))
  const observer = createRedisMetrics(registry)
  const { pools } = openPools(config.pools, registry, CATALOG)
  const settings = { ...jobsSettings(config, target), redis: target }
  const consumer = await openJobConsumer(settings, {
    pools,
    registry,
    log,
    observer,
    ...(tracing ? { tracing } : {}),
  }).catch(async (err: unknown) => {
    // Redis unreachable: what was opened is closed, and the process says why
    await pools.close()
    await tracing?.shutdown()
    throw err
  })
  return {
    config,
    target,
    registry,
    pools,
    consumer,
    concurrency: workerConcurrency(settings),
    tracing,
    async close(graceMs) {
      await consumer.close(graceMs)
      await pools.close()
      // last: the spans of the jobs finished above are exported before the process exits
      await tracing?.shutdown()
    },
  }
}
