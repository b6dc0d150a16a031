import type { JobsOptions, Queue } from 'bullmq'
import type { TraceCarrier } from '../../observability/trace-context.ts'
import {
  emptyDepth,
  JOB_STATUSES,
  type JobStatus,
  type NewJob,
  planPriority,
  type QueueDepth,
  TIERS,
  type Tier,
} from '../types.ts'

export const DEFAULT_PREFIX = 'anvil'

// BullMQ's keys are `<prefix>:<queue name>:<suffix>`, and each queue's name is a hash tag of its own:
// anvil-jobs:{paid}:… and anvil-jobs:{free}:…. So every key of one queue (its lists and sorted sets, each
// job's hash, lock and logs) is in one Redis Cluster slot, as BullMQ's multi-key scripts need (BullMQ's
// Redis Cluster guide), while the two queues have slots of their own, which a cluster can place on
// different nodes (with three masters and the slots spread evenly, they are).
export function bullPrefix(prefix: string): string {
  return `${prefix}-jobs`
}

// One queue per plan tier, like the pools: free-tier work never waits behind paid work or takes its threads.
export function queueName(tier: Tier): string {
  return `{${tier}}`
}

// A job's record (status, input, result) sits with the workspace's other keys under its hash tag: reading
// another workspace's job would need a key that names that workspace.
export function recordKey(prefix: string, workspaceId: string, id: string): string {
  return `${prefix}:{ws:${workspaceId}}:job:${id}`
}

// The workspace's jobs queued or running (a sorted set of ids by submission time), under the same hash tag
// as their records, so the cap on jobs in flight is checked and taken in one script.
export function inFlightKey(prefix: string, workspaceId: string): string {
  return `${prefix}:{ws:${workspaceId}}:jobs:inflight`
}

// What BullMQ carries: enough to find the record. The input stays out of the queue, so BullMQ's scripts,
// listings and retries never move tens of megabytes.
export interface JobData {
  workspace_id: string
  operation: string
  // W3C trace context of the enqueue, when the gateway traces: the worker's spans continue its trace
  trace?: TraceCarrier
}

export function jobOptions(job: NewJob, resultTtlSeconds: number): JobsOptions {
  return {
    jobId: job.id,
    priority: planPriority(job.plan),
    // for infrastructure errors (Redis briefly away while saving); operation errors are never retried
    attempts: 5,
    backoff: { type: 'exponential', delay: 1_000 },
    // the record holds what users read; BullMQ's finished entries are kept as long, for operators
    removeOnComplete: { age: resultTtlSeconds },
    removeOnFail: { age: resultTtlSeconds },
  }
}

export async function queueDepth(queues: Record<Tier, Queue>): Promise<QueueDepth> {
  const depth = emptyDepth()
  await Promise.all(
    TIERS.map(async (tier) => {
      const c = await queues[tier].getJobCounts(
        'wait',
        'prioritized',
        'active',
        'delayed',
        'failed',
        'completed',
      )
      depth[tier] = {
        waiting: (c.wait ?? 0) + (c.prioritized ?? 0),
        active: c.active ?? 0,
        delayed: c.delayed ?? 0,
        failed: c.failed ?? 0,
        completed: c.completed ?? 0,
      }
    }),
  )
  return depth
}

// Every job of the workspace by submission time (a sorted set of ids), for GET /v1/jobs: newest first
// with ZREVRANGE; ids whose record has expired are removed as they are met.
export function jobListKey(prefix: string, workspaceId: string): string {
  return `${prefix}:{ws:${workspaceId}}:jobs:all`
}

// The workspace's jobs of one status by submission time (a sorted set like the job list): every script
// that changes a job's status moves its id, so GET /v1/jobs?status= reads that status's jobs only.
export function statusListKey(prefix: string, workspaceId: string, status: JobStatus): string {
  return `${prefix}:{ws:${workspaceId}}:jobs:status:${status}`
}

export function statusListKeys(prefix: string, workspaceId: string): string[] {
  return JOB_STATUSES.map((status) => statusListKey(prefix, workspaceId, status))
}
