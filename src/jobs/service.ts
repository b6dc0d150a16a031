import type { PoolSet } from '../exec/pools.ts'
import type { PlanLimits, PlanName } from '../limits/plans.ts'
import type { Catalog } from '../ops/catalog.ts'
import type { Page } from '../store/types.ts'
import { isJobId, newJobId } from './job-id.ts'
import type { JobMetrics } from './metrics.ts'
import { prepareJob } from './prepare.ts'
import {
  type CancelReply,
  JOB_BUDGET_FACTOR,
  type JobBackend,
  type JobMeta,
  type JobStatus,
  type NewJob,
  type StoredJob,
} from './types.ts'

export interface SubmitContext {
  workspaceId: string
  plan: PlanName
  limits: PlanLimits
}

// What the /v1/jobs routes use, the same whichever backend keeps the jobs.
export interface JobService {
  // which backend keeps the jobs
  readonly kind: JobBackend['kind']
  // validates the body (the same 400s as the synchronous endpoint), stores it, queues it
  submit(ctx: SubmitContext, body: Uint8Array): Promise<NewJob>
  // undefined: unknown, another workspace's, or expired
  get(workspaceId: string, id: string): Promise<StoredJob | undefined>
  // newest first; undefined when the cursor is not one of the workspace's jobs
  list(
    workspaceId: string,
    query: { limit: number; startingAfter?: string | undefined; status?: JobStatus | undefined },
  ): Promise<Page<JobMeta> | undefined>
  // cancel a queued job, ask a running one to stop
  cancel(workspaceId: string, id: string): Promise<CancelReply>
  // the bytes the workspace's jobs keep, as its job storage budget counts them (src/jobs/storage.ts)
  storedBytes(workspaceId: string): Promise<number>
  close(): Promise<void>
}

export interface JobServiceDeps {
  backend: JobBackend
  pools: PoolSet
  // the ops that may run as jobs, and their schemas (src/ops/catalog.ts)
  catalog: Catalog
  metrics: JobMetrics
  clock: () => number
}

export function createJobService({ backend, pools, catalog, metrics, clock }: JobServiceDeps): JobService {
  return {
    kind: backend.kind,
    async submit(ctx, body) {
      const operation = await prepareJob(pools, body, { ...ctx, catalog })
      const job: NewJob = {
        id: newJobId(),
        workspace_id: ctx.workspaceId,
        operation,
        plan: ctx.plan,
        tier: ctx.limits.pool,
        budget_ms: ctx.limits.compute_budget_ms * JOB_BUDGET_FACTOR,
        max_result_bytes: ctx.limits.max_job_result_bytes,
        max_job_storage_bytes: ctx.limits.max_job_storage_bytes,
        created_at: clock(),
      }
      await backend.enqueue(job, body, ctx.limits.max_jobs_in_flight)
      metrics.submitted.inc({ operation, plan: ctx.plan })
      return job
    },
    async get(workspaceId, id) {
      if (!isJobId(id)) return undefined
      const job = await backend.read(workspaceId, id)
      if (!job) return undefined
      // storage reclaims expired jobs on its own schedule; readers see the exact lifetime
      if (job.meta.expires_at !== undefined && job.meta.expires_at <= clock()) {
        await backend.forget(workspaceId, id)
        return undefined
      }
      return job
    },
    list(workspaceId, query) {
      if (query.startingAfter !== undefined && !isJobId(query.startingAfter))
        return Promise.resolve(undefined)
      return backend.list(workspaceId, { ...query, now: clock() })
    },
    async cancel(workspaceId, id) {
      if (!isJobId(id)) return { state: 'gone' }
      const reply = await backend.cancel(workspaceId, id, clock())
      // an expired job is gone, as for get()
      if (reply.state !== 'gone' && reply.meta.expires_at !== undefined && reply.meta.expires_at <= clock())
        return { state: 'gone' }
      return reply
    },
    storedBytes: (workspaceId) => backend.storedBytes(workspaceId),
    close: () => backend.close(),
  }
}
