import type { PlanName } from '../limits/plans.ts'
import type { TraceCarrier } from '../observability/trace-context.ts'
import { CATALOG } from '../ops/catalog.ts'
import { jobOps } from '../ops/jobs/schema.ts'
import type { Page, PageRequest } from '../store/types.ts'

// the built-in ops that may run as jobs (OpDescriptor.job): the metrics' label values
export const JOB_OPERATIONS: readonly string[] = jobOps(CATALOG).map((op) => op.name)
// an op's name (src/ops/catalog.ts)
export type JobOperation = string
export const JOB_STATUSES = ['queued', 'active', 'completed', 'failed', 'cancelled'] as const
export type JobStatus = (typeof JOB_STATUSES)[number]
// the states a job does not leave: it has its outcome, expires_at is set
export const isFinished = (status: JobStatus) =>
  status === 'completed' || status === 'failed' || status === 'cancelled'
export type Tier = 'free' | 'paid'
export const TIERS: readonly Tier[] = ['paid', 'free']

// A job's life on the worker: its wait in the queue and its run, children of the gateway's enqueue span.
export interface JobTraceInfo {
  id: string
  queue: string
  operation: string
  workspaceId: string
  // epoch ms when BullMQ took the job (the enqueue)
  enqueuedAt: number
  attempt: number
  trace: TraceCarrier | undefined
}

// What runs each job inside its trace (src/tracing/, when tracing is on): its wait and its run as spans.
export interface JobTracer {
  runJob<T>(job: JobTraceInfo, run: () => Promise<T>): Promise<T>
}

// The jobs' settings (JOBS_*, read by src/config.ts and handed down).
export interface JobsConfig {
  // how long a finished job's result (or error) stays readable
  resultTtlSeconds: number
  // jobs run at once per process; unset: the paid pool's threads in a job worker, half of them in a gateway
  concurrency: number | undefined
  // how often workers look for jobs whose worker died, and how long a job's lock lives unrenewed
  stalledIntervalMs: number
  // how often a running job's progress is stored on its record (and, on Redis, its cancel flag read)
  progressIntervalMs: number
  workerMetricsPort: number
  workerMetricsHost: string
  // the store-wide budget for job data (JOBS_MAX_STORAGE_BYTES); undefined: a share of the jobs Redis's
  // maxmemory, or of the disk (docs/jobs.md, "Job storage")
  maxStorageBytes: number | undefined
}

// Inputs may be this many times the plan's synchronous JSON body limit.
export const JOB_INPUT_FACTOR = 4
// A job may compute this many times the plan's per-request budget (pro: 100 s, business: 300 s).
export const JOB_BUDGET_FACTOR = 10
// Runs a job may lose to a dying worker (killed, out of memory, frozen) before it fails for good.
export const MAX_STALLS = 2
// A job that has not finished this long after submission is dropped with its input (a safety net for
// records whose queue entry was lost; a healthy system never gets near it).
export const PENDING_TTL_MS = 7 * 86_400_000

// The error object of the synchronous endpoint, without its type (derived from the code when shown).
export interface JobError {
  code: string
  message: string
  details?: Record<string, unknown>
}

// Everything known about a job except its input and result, which may be tens of megabytes each and are
// kept beside it. Times are epoch milliseconds.
export interface JobMeta {
  id: string
  workspace_id: string
  operation: JobOperation
  plan: PlanName
  tier: Tier
  budget_ms: number
  // a result larger than this fails the job (ERR_RESULT_TOO_LARGE) and is never stored
  max_result_bytes: number
  // the workspace's job storage budget when the job was submitted, which its result must fit in
  // (storage.ts); absent on records written before budgets
  max_job_storage_bytes?: number
  status: JobStatus
  created_at: number
  started_at?: number
  finished_at?: number
  expires_at?: number
  error?: JobError
  // DELETE /v1/jobs/{id} while it ran: the worker running it stops it and records it cancelled
  cancel_requested_at?: number
  // the fraction of its work the operation last reported while it ran (0 ≤ f < 1; only ever grows);
  // absent until an operation that can tell has reported a step
  progress?: number
  // runs started, and runs lost because their worker died
  attempts: number
  stalls: number
}

export type NewJob = Pick<
  JobMeta,
  'id' | 'workspace_id' | 'operation' | 'plan' | 'tier' | 'budget_ms' | 'max_result_bytes' | 'created_at'
> & { max_job_storage_bytes: number }

// A job as read back: its record and, once completed, the operation's data as JSON text.
export interface StoredJob {
  meta: JobMeta
  result?: string
}

// Why a run failed: the operation refused its input, the compute budget ran out, the worker thread died
// (out of memory or a bug), the worker process stopped renewing its lock (killed, frozen), or its result
// had no room in the workspace's or the store's job storage (storage.ts).
export const FAILURE_REASONS = ['operation', 'timeout', 'crash', 'stalled', 'storage'] as const
export type FailureReason = (typeof FAILURE_REASONS)[number]

export type JobOutcome =
  | { status: 'completed'; result: string }
  // cause: what killed a crashed run, for the log only
  | { status: 'failed'; error: JobError; reason: FailureReason; cause?: unknown }

export const DEPTH_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const
export type DepthState = (typeof DEPTH_STATES)[number]
export type QueueDepth = Record<Tier, Record<DepthState, number>>

// Where jobs are kept and queued: Redis with BullMQ (run by `npm run worker` processes), or in process.
export interface JobBackend {
  readonly kind: 'redis' | 'embedded'
  // durable before it resolves: a job accepted is a job that will run. With maxInFlight, refuses with 409
  // ERR_CONFLICT {limit: 'max_jobs_in_flight', max} when the workspace already has that many jobs queued
  // or running (checked and added atomically). The input is counted against the workspace's job storage
  // (job.max_job_storage_bytes: 409 ERR_CONFLICT {limit: 'max_job_storage_bytes', max, stored, bytes})
  // and the store's (503 ERR_JOB_STORAGE_FULL), checked and taken atomically (storage.ts).
  enqueue(job: NewJob, input: Uint8Array, maxInFlight?: number): Promise<void>
  // undefined for an unknown id and for another workspace's job alike
  read(workspaceId: string, id: string): Promise<StoredJob | undefined>
  // drop an expired job now rather than at its storage expiry
  forget(workspaceId: string, id: string): Promise<void>
  // the workspace's jobs newest first (expired ones left out), optionally of one status; undefined when
  // the cursor is not one of its jobs
  list(workspaceId: string, query: JobListQuery): Promise<Page<JobMeta> | undefined>
  // a queued job is cancelled at once; a running one is asked to stop (its worker records it cancelled)
  cancel(workspaceId: string, id: string, now: number): Promise<CancelReply>
  depth(): Promise<QueueDepth>
  // the bytes the workspace's jobs are counted at now (storage.ts)
  storedBytes(workspaceId: string): Promise<number>
  // the bytes every workspace's jobs are counted at, and the store's budget (undefined: none)
  storage(): Promise<StorageUse>
  close(): Promise<void>
}

export interface StorageUse {
  bytes: number
  max: number | undefined
}

export interface JobListQuery extends PageRequest {
  status?: JobStatus | undefined
  // jobs whose expires_at is at or before this are left out
  now: number
}

// gone: unknown or another workspace's; finished: it already had its outcome (the record as it is);
// cancelled: it was queued and is now cancelled; requested: it is running and was asked to stop
export type CancelReply = { state: 'gone' } | { state: 'finished' | 'cancelled' | 'requested'; meta: JobMeta }

// Within a queue, bigger plans go first: lower runs sooner, as with BullMQ priorities.
const PRIORITY: Partial<Record<PlanName, number>> = { business: 1, pro: 2 }

export function planPriority(plan: PlanName): number {
  return PRIORITY[plan] ?? 3
}

export function emptyDepth(): QueueDepth {
  const row = () => ({ waiting: 0, active: 0, delayed: 0, failed: 0, completed: 0 })
  return { paid: row(), free: row() }
}
