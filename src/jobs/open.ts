import { join } from 'node:path'
import type { Registry } from 'prom-client'
import type { Config } from '../config.ts'
import type { PoolSet } from '../exec/pools.ts'
import { redisTarget } from '../store/open.ts'
import type { TraceCarrier } from '../tracing/types.ts'
import { EmbeddedJobBackend } from './embedded/backend.ts'
import { createJobMetrics } from './metrics.ts'
import { createJobService, type JobService } from './service.ts'
import { emptyDepth, type JobBackend } from './types.ts'

export interface OpenJobsDeps {
  pools: PoolSet
  registry: Registry
  clock: () => number
  log: (message: string, detail: Record<string, unknown>) => void
  // the active trace context, carried by each job's queue entry to the worker that runs it (tracing on)
  traceCarrier?: () => TraceCarrier | undefined
}

// Without a job worker process the gateway runs jobs itself: on half the paid pool's threads by default,
// so synchronous requests always keep the other half.
export function embeddedConcurrency(config: Pick<Config, 'jobs' | 'pools'>) {
  const paid = config.jobs.concurrency ?? Math.max(1, Math.floor(config.pools.paid.threads / 2))
  return { paid, free: Math.min(paid, config.pools.free.threads) }
}

// The gateway's job system: on Redis, jobs are queued for `npm run worker` processes; embedded, this
// process runs them on its own pools.
export async function openJobs(config: Config, deps: OpenJobsDeps): Promise<JobService> {
  let backend: JobBackend | undefined
  const metrics = createJobMetrics(deps.registry, () => backend?.depth() ?? Promise.resolve(emptyDepth()))
  const target = redisTarget(config)
  // BullMQ (and ioredis) are loaded only by a process that uses Redis: ~15 MiB of RSS an embedded
  // gateway never needs (issue 18); once, at boot, never at request time
  backend = target
    ? await (await import('./redis/backend.ts')).RedisJobBackend.open({
        target,
        resultTtlSeconds: config.jobs.resultTtlSeconds,
        ...(deps.traceCarrier ? { traceCarrier: deps.traceCarrier } : {}),
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
      })
  return createJobService({ backend, pools: deps.pools, metrics, clock: deps.clock })
}
