import { hostname } from 'node:os'
import { performance } from 'node:perf_hooks'
import { DelayedError, type Job, UnrecoverableError, WaitingError, Worker } from 'bullmq'
import type { PoolSet } from '../../exec/pools.ts'
import { ProgressProbe } from '../../exec/progress-board.ts'
import type { RedisTarget } from '../../store/redis/client.ts'
import { deadline } from '../../store/redis/connection.ts'
import { instrumentClient, type RedisObserver } from '../../store/redis/instrument.ts'
import type { JobMetrics } from '../metrics.ts'
import { recordOutcome, stalledOut } from '../outcome.ts'
import { PoolBusyError, runJob } from '../run-job.ts'
import { JOB_RECORD_BYTES, jobBytes, outcomeBytes, resultRefused } from '../storage.ts'
import { type JobOutcome, type JobsConfig, type JobTracer, MAX_STALLS, TIERS, type Tier } from '../types.ts'
import { openQueues } from './backend.ts'
import { storageBudget } from './capacity.ts'
import { connectJobsClient } from './client.ts'
import { bullPrefix, DEFAULT_PREFIX, type JobData, queueDepth, queueName } from './layout.ts'
import { JobLedger } from './ledger.ts'
import { JobRecords } from './records.ts'

export type JobLog = (
  level: 'info' | 'warn' | 'error',
  message: string,
  detail: Record<string, unknown>,
) => void

export interface ConsumerOptions {
  target: RedisTarget
  pools: PoolSet
  jobs: JobsConfig
  // jobs run at once, per queue
  concurrency: Record<Tier, number>
  metrics: JobMetrics
  log: JobLog
  clock?: () => number
  prefix?: string
  // Redis command latency and errors of the worker's connection (BullMQ's blocking reads use their own)
  observer?: RedisObserver
  // OpenTelemetry: each job's wait and run as spans of the trace its enqueue carried
  tracing?: JobTracer
  // the store's job storage budget (JOBS_MAX_STORAGE_BYTES), which a result must fit in; undefined: sized
  // from Redis's maxmemory as the gateways size it (src/jobs/redis/capacity.ts)
  maxStorageBytes?: number | undefined
  // whether the jobs share the Redis that decides limits (no JOBS_REDIS_URL)
  sharedWithLimits?: boolean
}

export interface Consumer {
  depth: () => ReturnType<typeof queueDepth>
  // stop taking jobs; let running ones finish for up to graceMs, then hand the rest back to the queue
  close(graceMs?: number): Promise<void>
}

// The worker process's side of jobs on Redis: one BullMQ worker per queue, each running its jobs on the
// tier's Piscina pool. A worker that dies mid-job stops renewing the job's lock; another worker's stalled
// check puts the job back in the queue and it runs again (the record script keeps the first outcome).
export async function startConsumer(options: ConsumerOptions): Promise<Consumer> {
  const { pools, jobs, metrics, log } = options
  const clock = options.clock ?? Date.now
  const prefix = options.prefix ?? DEFAULT_PREFIX
  const ttlMs = jobs.resultTtlSeconds * 1000
  const client = await connectJobsClient(options.target, 'worker')
  if (options.observer) instrumentClient(client, options.observer)
  const records = new JobRecords(client, prefix)
  const ledger = new JobLedger(client, prefix)
  const maxStorage = await storageBudget(
    client,
    options.maxStorageBytes,
    options.sharedWithLimits ?? true,
  ).catch((err: unknown) => {
    client.disconnect()
    throw err
  })
  const queues = openQueues(client, prefix)
  const stop = new AbortController()

  // A result is kept only when the workspace's job storage (its budget when the job was submitted) and the
  // store's have room for it in place of the input; otherwise the job fails and keeps its error instead.
  async function room(job: Job<JobData>, outcome: JobOutcome, maxWorkspace: number | undefined, now: number) {
    if (outcome.status !== 'completed') return { outcome, reserved: false }
    const bytes = jobBytes(outcomeBytes(outcome))
    const max = { workspace: maxWorkspace ?? Number.MAX_SAFE_INTEGER, store: maxStorage }
    const r = await ledger.reserve(job.data.workspace_id, job.id!, bytes, now + ttlMs, max, now)
    if (r.ok) return { outcome, reserved: true }
    metrics.storageRefused.inc({ limit: r.limit, stage: 'result' })
    return { outcome: resultRefused(r), reserved: false }
  }

  // ranAt: performance.now() when the run began, for its duration; undefined when it did not run.
  // maxWorkspace: the workspace's job storage budget the record carries.
  async function finish(
    job: Job<JobData>,
    ran: JobOutcome,
    ranAt: number | undefined,
    maxWorkspace?: number,
  ) {
    const { workspace_id: ws, operation } = job.data
    const now = clock()
    const { outcome, reserved } = await room(job, ran, maxWorkspace, now)
    const kept = await records.finish(ws, job.id!, outcome, now, ttlMs)
    // the ledger counts what the record keeps: the result just reserved, or else what it holds (an error,
    // or the outcome of a run that finished first), or nothing once it is gone
    if (kept.state === 'gone') await ledger.release(ws, job.id!, now)
    else if (!(reserved && kept.recorded))
      await ledger.set(ws, job.id!, jobBytes(kept.bytes), kept.expiresAt, now)
    // only the run that records the outcome counts it, so a duplicate run is not counted twice
    if (kept.state === 'kept' && kept.recorded) {
      recordOutcome(metrics, operation, outcome, ranAt === undefined ? undefined : performance.now() - ranAt)
      if (outcome.status === 'failed' && outcome.cause) {
        log('error', 'job crashed its worker thread', { job: job.id, operation, err: String(outcome.cause) })
      }
    }
    // mirrored in BullMQ so operators see failed jobs there too; UnrecoverableError: never retried
    if (outcome.status === 'failed') throw new UnrecoverableError(outcome.error.code)
  }

  // a cancelled job keeps its record only, until it expires
  async function cancelled(ws: string, id: string) {
    const now = clock()
    if ((await records.cancel(ws, id, now, ttlMs, true)) === 'cancelled')
      await ledger.set(ws, id, JOB_RECORD_BYTES, now + ttlMs, now)
  }

  function processor(tier: Tier) {
    const handle = processOn(tier)
    const { tracing } = options
    if (!tracing) return handle
    return function traceJob(job: Job<JobData>, token?: string): Promise<void> {
      const info = {
        id: job.id!,
        queue: tier,
        operation: job.data.operation,
        workspaceId: job.data.workspace_id,
        enqueuedAt: job.timestamp,
        attempt: job.attemptsMade + 1,
        trace: job.data.trace,
      }
      return tracing.runJob(info, () => handle(job, token))
    }
  }

  function processOn(tier: Tier) {
    return async function processJob(job: Job<JobData>, token?: string): Promise<void> {
      const { workspace_id: ws } = job.data
      if (job.stalledCounter > MAX_STALLS) return finish(job, stalledOut(job.stalledCounter), undefined)
      const ranAt = performance.now()
      const started = await records.start(ws, job.id!, clock(), job.stalledCounter)
      // asked to stop while a run that was lost had it: cancelled without running again
      if (started.state === 'cancel') return cancelled(ws, job.id!)
      // expired before it ran, or finished by a run presumed dead
      if (started.state !== 'run') return
      // BullMQ cannot kill a running job: DELETE /v1/jobs/{id} sets a flag on the record, checked here
      // while the job runs (with the progress its operation reported, one script per look); when it is
      // set, the pool task is aborted and the job recorded cancelled
      const cancel = new AbortController()
      const probe = new ProgressProbe()
      const watch = setInterval(() => {
        records.watch(ws, job.id!, probe.value()).then(
          (asked) => asked && cancel.abort(),
          () => {},
        )
      }, jobs.progressIntervalMs)
      let outcome: JobOutcome
      try {
        outcome = await runJob(
          pools,
          { workspace_id: ws, tier, budget_ms: started.budgetMs, max_result_bytes: started.maxResultBytes },
          started.input,
          AbortSignal.any([stop.signal, cancel.signal]),
          probe,
        )
      } catch (err) {
        if (cancel.signal.aborted && !stop.signal.aborted) return cancelled(ws, job.id!)
        // not finished: shutting down, or the pool is full. Back to the queue without using an attempt.
        await records.requeue(ws, job.id!)
        if (err instanceof PoolBusyError) {
          await job.moveToDelayed(Date.now() + 1_000, token)
          throw new DelayedError()
        }
        await job.moveToWait(token)
        throw new WaitingError()
      } finally {
        clearInterval(watch)
      }
      return finish(job, outcome, ranAt, started.maxStorageBytes)
    }
  }

  async function onStalled(tier: Tier, id: string) {
    const job = await queues[tier].getJob(id).catch(() => undefined)
    metrics.failed.inc({ operation: job?.data.operation ?? 'unknown', reason: 'stalled' })
    if (job) await records.requeue(job.data.workspace_id, id).catch(() => {})
    log('warn', 'job stalled: its worker stopped renewing the lock; it is back in the queue', {
      job: id,
      queue: tier,
    })
  }

  const workers = TIERS.map((tier) => {
    const worker = new Worker<JobData>(queueName(tier), processor(tier), {
      connection: client,
      prefix: bullPrefix(prefix),
      name: `${hostname()}:${process.pid}`,
      concurrency: options.concurrency[tier],
      lockDuration: jobs.stalledIntervalMs,
      stalledInterval: jobs.stalledIntervalMs,
      // a backstop only: processJob gives up on a job first, recording why
      maxStalledCount: MAX_STALLS + 1,
    })
    worker.on('stalled', (id) => void onStalled(tier, id))
    worker.on('error', (err) => log('warn', 'job worker error', { queue: tier, err: err.message }))
    return worker
  })
  await Promise.all(workers.map((w) => w.waitUntilReady()))

  return {
    // a scrape while Redis is away gets no gauge rather than waiting for it
    depth: () => deadline(queueDepth(queues), 2_000),
    async close(graceMs = 0) {
      const closing = Promise.all(workers.map((w) => w.close()))
      if (graceMs > 0) {
        let timer: NodeJS.Timeout | undefined
        await Promise.race([closing, new Promise((r) => (timer = setTimeout(r, graceMs)))])
        clearTimeout(timer)
      }
      stop.abort()
      await closing
      await Promise.allSettled(Object.values(queues).map((q) => q.close()))
      client.disconnect()
    },
  }
}
