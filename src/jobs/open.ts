import { join } from 'node:path'
import type { Registry } from 'prom-client'
import type { PoolSet } from '../exec/pools.ts'
import type { TraceCarrier } from '../observability/trace-context.ts'
import type { Catalog } from '../ops/catalog.ts'
import type { RedisTarget } from '../store/redis/client.ts'
import type { RedisObserver } from '../store/redis/instrument.ts'
import { EmbeddedJobBackend } from './embedded/backend.ts'
import { diskBudget } from './embedded/capacity.ts'
import { createJobMetrics } from './metrics.ts'
import type { Consumer, JobLog } from './redis/consumer.ts'
import { createJobService, type JobService } from './service.ts'
import { emptyDepth, type JobBackend, type JobsConfig, type JobTracer } from './types.ts'

export interface OpenJobsDeps {
  pools: PoolSet
  catalog: Catalog
  registry: Registry
  clock: () => number
  log: (message: string, detail: Record<string, unknown>) => void
  // the active trace context, carried by each job's queue entry to the worker that runs it (tracing on)
  traceCarrier?: () => TraceCarrier | undefined
}

// What the jobs need of the configuration, handed down by the composition root.
export interface JobsSettings {
  jobs: JobsConfig
  // the pools' thread counts (POOL_*_THREADS): how many jobs may run at once by default
  threads: { paid: number; free: number }
  // where jobs are queued: Redis (JOBS_REDIS_URL, else the store's), or (undefined) this process, with its
  // files in DATA_DIR/jobs
  redis: RedisTarget | undefined
  // whether that Redis also decides limits (no JOBS_REDIS_URL): job data then gets a smaller share of it
  sharedWithLimits: boolean
  dataDir: string
}

// Without a job worker process the gateway runs jobs itself: on half the paid pool's threads by default,
// so synchronous requests always keep the other half.
export function embeddedConcurrency(settings: Pick<JobsSettings, 'jobs' | 'threads'>) {
  const paid = settings.jobs.concurrency ?? Math.max(1, Math.floor(settings.threads.paid / 2))
  return { paid, free: Math.min(paid, settings.threads.free) }
}

// The gateway's job system: on Redis, jobs are queued for `npm run worker` processes; embedded, this
// process runs them on its own pools.
export async function openJobs(config: JobsSettings, deps: OpenJobsDeps): Promise<JobService> {
  let backend: JobBackend | undefined
  const metrics = createJobMetrics(
    deps.registry,
    () => backend?.depth() ?? Promise.resolve(emptyDepth()),
    () => backend?.storage() ?? Promise.resolve({ bytes: 0, max: undefined }),
  )
  const target = config.redis
  // BullMQ (and ioredis) are loaded only by a process that uses Redis: ~15 MiB of RSS an embedded
  // gateway never needs (issue 18); once, at boot, never at request time
  backend = target
    ? await (await import('./redis/backend.ts')).RedisJobBackend.open({
        target,
        resultTtlSeconds: config.jobs.resultTtlSeconds,
        ...(deps.traceCarrier ? { traceCarrier: deps.traceCarrier } : {}),
        maxStorageBytes: config.jobs.maxStorageBytes,
        sharedWithLimits: config.sharedWithLimits,
        clock: deps.clock,
        metrics,
      })
    : await EmbeddedJobBackend.open({
        dir: join(config.dataDir, 'jobs'),
        pools: deps.pools,
        concurrency: embeddedConcurrency(config),
        resultTtlSeconds: config.jobs.resultTtlSeconds,
        progressIntervalMs: config.jobs.progressIntervalMs,
        clock: deps.clock,
        metrics,
        log: deps.log,
        maxStorageBytes: await diskBudget(config.dataDir, config.jobs.maxStorageBytes),
      })
  return createJobService({ backend, pools: deps.pools, catalog: deps.catalog, metrics, clock: deps.clock })
}

export interface OpenConsumerDeps {
  pools: PoolSet
  registry: Registry
  log: JobLog
  // Redis command latency and errors of the worker's connection
  observer: RedisObserver
  tracing?: JobTracer
}

// A job worker runs as many jobs at once as the paid pool has threads, by default.
export function workerConcurrency(settings: Pick<JobsSettings, 'jobs' | 'threads'>) {
  const paid = settings.jobs.concurrency ?? settings.threads.paid
  return { paid, free: Math.min(paid, settings.threads.free) }
}

// A job worker's side of jobs (`npm run worker`): BullMQ consumers of the gateways' Redis queues that run
// each job on this process's pools, with the job metrics on `registry`.
export async function openJobConsumer(
  settings: JobsSettings & { redis: RedisTarget },
  deps: OpenConsumerDeps,
): Promise<Consumer> {
  const { startConsumer } = await import('./redis/consumer.ts')
  let consumer: Consumer | undefined
  const metrics = createJobMetrics(deps.registry, () => consumer?.depth() ?? Promise.resolve(emptyDepth()))
  consumer = await startConsumer({
    target: settings.redis,
    pools: deps.pools,
    jobs: settings.jobs,
    concurrency: workerConcurrency(settings),
    metrics,
    observer: deps.observer,
    ...(deps.tracing ? { tracing: deps.tracing } : {}),
    log: deps.log,
    maxStorageBytes: settings.jobs.maxStorageBytes,
    sharedWithLimits: settings.sharedWithLimits,
  })
  return consumer
}
