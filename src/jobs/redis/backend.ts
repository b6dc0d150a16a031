import { Queue } from 'bullmq'
import type { Cluster, Redis } from 'ioredis'
import { AppError } from '../../errors.ts'
import { capExceeded } from '../../limits/tenant-caps.ts'
import type { TraceCarrier } from '../../observability/trace-context.ts'
import type { RedisTarget } from '../../store/redis/client.ts'
import { deadline } from '../../store/redis/connection.ts'
import type { Page } from '../../store/types.ts'
import type {
  CancelReply,
  JobBackend,
  JobListQuery,
  JobMeta,
  NewJob,
  QueueDepth,
  StoredJob,
  Tier,
} from '../types.ts'
import { connectJobsClient } from './client.ts'
import { bullPrefix, DEFAULT_PREFIX, type JobData, jobOptions, queueDepth, queueName } from './layout.ts'
import { JobRecords } from './records.ts'

export interface RedisJobBackendOptions {
  target: RedisTarget
  resultTtlSeconds: number
  // namespace of the records and of BullMQ's keys (tests share one Redis between suites)
  prefix?: string
  // the trace context a job's queue entry carries to its worker (tracing on)
  traceCarrier?: () => TraceCarrier | undefined
}

function unavailable(cause: unknown): AppError {
  if (cause instanceof AppError) return cause
  const err = new AppError('ERR_UNAVAILABLE', 'The job store is unreachable; retry shortly.', undefined, {
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
  #queues: Record<Tier, Queue<JobData>>
  #ttlSeconds: number
  #traceCarrier: (() => TraceCarrier | undefined) | undefined

  private constructor(
    client: Redis | Cluster,
    prefix: string,
    ttlSeconds: number,
    traceCarrier?: () => TraceCarrier | undefined,
  ) {
    this.#client = client
    this.#records = new JobRecords(client, prefix)
    this.#queues = openQueues(client, prefix)
    this.#ttlSeconds = ttlSeconds
    this.#traceCarrier = traceCarrier
  }

  static async open(options: RedisJobBackendOptions): Promise<RedisJobBackend> {
    const client = await connectJobsClient(options.target, 'producer')
    return new RedisJobBackend(
      client,
      options.prefix ?? DEFAULT_PREFIX,
      options.resultTtlSeconds,
      options.traceCarrier,
    )
  }

  async enqueue(job: NewJob, input: Uint8Array, maxInFlight?: number): Promise<void> {
    let created: boolean
    try {
      // record first: a worker never takes up a job whose record is not there yet
      created = await this.#records.create(job, input, maxInFlight)
    } catch (err) {
      throw unavailable(err)
    }
    if (!created) throw capExceeded('max_jobs_in_flight', maxInFlight!)
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
      await this.#records.forget(job.workspace_id, job.id).catch(() => {})
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
    // best effort: the record's own TTL reclaims it anyway
    await this.#records.forget(workspaceId, id).catch(() => {})
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
      const state = await this.#records.cancel(workspaceId, id, now, this.#ttlSeconds * 1000)
      if (state === 'gone') return { state }
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

  async close(): Promise<void> {
    await Promise.allSettled(Object.values(this.#queues).map((q) => q.close()))
    this.#client.disconnect()
  }
}
