import { Queue } from 'bullmq'
import type { Cluster, Redis } from 'ioredis'
import { AppError } from '../../errors.ts'
import { capExceeded } from '../../limits/tenant-caps.ts'
import type { TraceCarrier } from '../../observability/trace-context.ts'
import type { RedisTarget } from '../../store/redis/client.ts'
import { deadline } from '../../store/redis/connection.ts'
import type { Page } from '../../store/types.ts'
import type { JobMetrics } from '../metrics.ts'
import { JOB_RECORD_BYTES, jobBytes, submitRefused } from '../storage.ts'
import {
  type CancelReply,
  type JobBackend,
  type JobListQuery,
  type JobMeta,
  type NewJob,
  PENDING_TTL_MS,
  type QueueDepth,
  type StorageUse,
  type StoredJob,
  type Tier,
} from '../types.ts'
import { storageBudget } from './capacity.ts'
import { connectJobsClient } from './client.ts'
import { bullPrefix, DEFAULT_PREFIX, type JobData, jobOptions, queueDepth, queueName } from './layout.ts'
import { JobLedger } from './ledger.ts'
import { JobRecords } from './records.ts'

export interface RedisJobBackendOptions {
  target: RedisTarget
  resultTtlSeconds: number
  // namespace of the records and of BullMQ's keys (tests share one Redis between suites)
  prefix?: string
  // the trace context a job's queue entry carries to its worker (tracing on)
  traceCarrier?: () => TraceCarrier | undefined
  // the store's job storage budget (JOBS_MAX_STORAGE_BYTES); undefined: sized from Redis's maxmemory
  maxStorageBytes?: number | undefined
  // whether the jobs share the Redis that decides limits (no JOBS_REDIS_URL): a smaller share of it
  sharedWithLimits?: boolean
  clock?: () => number
  // where refusals for want of job storage are counted
  metrics?: JobMetrics
}

// Redis refuses a write at its maxmemory with this: the job storage is full, whatever the ledger said
// (data that is not job data grew); the same clear refusal as the store's budget.
const isOutOfMemory = (err: unknown) => err instanceof Error && err.message.startsWith('OOM ')

function unavailable(cause: unknown): AppError {
  if (cause instanceof AppError) return cause
  const err = isOutOfMemory(cause)
    ? new AppError('ERR_JOB_STORAGE_FULL', undefined, undefined, { 'retry-after': '60' })
    : new AppError('ERR_UNAVAILABLE', 'The job store is unreachable; retry shortly.', undefined, {
        'retry-after': '1',
      })
  return Object.assign(err, { cause })
}

// Queues per tier: { paid: Queue, free: Queue }, sharing one connection.
export function openQueues(client: Redis | Cluster, prefix: string): Record<Tier, Queue<JobData>> {
  const open = (tier: Tier) => {
    const queue = new Queue<JobData>(queueName(tier), { connection: client, prefix: bullPrefix(prefix) })
    // failures surface where the queue is used (503 on submit, an absent gauge); no unhandled 'error'
    queue.on('error', () => {})
    return queue
  }
  return { paid: open('paid'), free: open('free') }
}

// The gateway's side of jobs on Redis: it writes the record, queues the job and reads results; the
// `npm run worker` processes (consumer.ts) run them.
export class RedisJobBackend implements JobBackend {
  readonly kind = 'redis' as const
  #client: Redis | Cluster
  #records: JobRecords
  #ledger: JobLedger
  #queues: Record<Tier, Queue<JobData>>
  #ttlSeconds: number
  #traceCarrier: (() => TraceCarrier | undefined) | undefined
  #maxStorage: number | undefined
  #clock: () => number
  #metrics: JobMetrics | undefined

  private constructor(
    client: Redis | Cluster,
    options: RedisJobBackendOptions,
    maxStorage: number | undefined,
  ) {
    const prefix = options.prefix ?? DEFAULT_PREFIX
    this.#client = client
    this.#records = new JobRecords(client, prefix)
    this.#ledger = new JobLedger(client, prefix)
    this.#queues = openQueues(client, prefix)
    this.#ttlSeconds = options.resultTtlSeconds
    this.#traceCarrier = options.traceCarrier
    this.#maxStorage = maxStorage
    this.#clock = options.clock ?? Date.now
    this.#metrics = options.metrics
  }

  static async open(options: RedisJobBackendOptions): Promise<RedisJobBackend> {
    const client = await connectJobsClient(options.target, 'producer')
    const max = await storageBudget(client, options.maxStorageBytes, options.sharedWithLimits ?? true).catch(
      (err: unknown) => {
        client.disconnect()
        throw err
      },
    )
    return new RedisJobBackend(client, options, max)
  }

  async enqueue(job: NewJob, input: Uint8Array, maxInFlight?: number): Promise<void> {
    const ws = job.workspace_id
    const bytes = jobBytes(input.byteLength)
    const max = { workspace: job.max_job_storage_bytes, store: this.#maxStorage }
    let created: boolean
    try {
      // room first, counted until the record expires unfinished (or finishes, or is deleted)
      const room = await this.#ledger.reserve(
        ws,
        job.id,
        bytes,
        job.created_at + PENDING_TTL_MS,
        max,
        job.created_at,
      )
      if (!room.ok) {
        this.#metrics?.storageRefused.inc({ limit: room.limit, stage: 'submit' })
        throw submitRefused(room)
      }
      // record next: a worker never takes up a job whose record is not there yet
      created = await this.#records.create(job, input, maxInFlight)
    } catch (err) {
      if (!(err instanceof AppError)) await this.#ledger.release(ws, job.id, job.created_at).catch(() => {})
      throw unavailable(err)
    }
    if (!created) {
      await this.#ledger.release(ws, job.id, job.created_at).catch(() => {})
      throw capExceeded('max_jobs_in_flight', maxInFlight!)
    }
    try {
      const trace = this.#traceCarrier?.()
      const data: JobData = {
        workspace_id: job.workspace_id,
        operation: job.operation,
        ...(trace && { trace }),
      }
      await this.#queues[job.tier].add(job.operation, data, jobOptions(job, this.#ttlSeconds))
    } catch (err) {
      // the client is told to retry, so the input is not worth keeping for a week
      await this.forget(job.workspace_id, job.id)
      throw unavailable(err)
    }
  }

  async read(workspaceId: string, id: string): Promise<StoredJob | undefined> {
    try {
      return await this.#records.read(workspaceId, id)
    } catch (err) {
      throw unavailable(err)
    }
  }

  async forget(workspaceId: string, id: string): Promise<void> {
    // best effort: the record's own TTL reclaims it anyway, and its ledger entry expires with it
    await this.#records.forget(workspaceId, id).catch(() => {})
    await this.#ledger.release(workspaceId, id, this.#clock()).catch(() => {})
  }

  async list(workspaceId: string, query: JobListQuery): Promise<Page<JobMeta> | undefined> {
    try {
      return await this.#records.list(workspaceId, query)
    } catch (err) {
      throw unavailable(err)
    }
  }

  async cancel(workspaceId: string, id: string, now: number): Promise<CancelReply> {
    try {
      const ttlMs = this.#ttlSeconds * 1000
      const state = await this.#records.cancel(workspaceId, id, now, ttlMs)
      if (state === 'gone') return { state }
      // its input dropped: the record alone is counted, until it expires
      if (state === 'cancelled') await this.#ledger.set(workspaceId, id, JOB_RECORD_BYTES, now + ttlMs, now)
      const meta = await this.#records.readMeta(workspaceId, id)
      if (!meta) return { state: 'gone' }
      // best effort: a queued entry left in BullMQ is skipped when a worker takes it (job-start.lua)
      if (state === 'cancelled') await this.#queues[meta.tier].remove(id).catch(() => {})
      return { state, meta }
    } catch (err) {
      throw unavailable(err)
    }
  }

  depth(): Promise<QueueDepth> {
    return deadline(queueDepth(this.#queues), 2_000)
  }

  async storedBytes(workspaceId: string): Promise<number> {
    try {
      return (await this.#ledger.read(workspaceId, this.#clock())).workspace
    } catch (err) {
      throw unavailable(err)
    }
  }

  async storage(): Promise<StorageUse> {
    const { store } = await deadline(this.#ledger.read('', this.#clock()), 2_000)
    return { bytes: store, max: this.#maxStorage }
  }

  async close(): Promise<void> {
    await Promise.allSettled(Object.values(this.#queues).map((q) => q.close()))
    this.#client.disconnect()
  }
}
