import { Counter, Gauge, Histogram, type Registry } from 'prom-client'
import { PLAN_NAMES } from '../limits/plans.ts'
import { cross, zeroCounter, zeroHistogram } from '../observability/zero.ts'
import type { StorageLimit } from './storage.ts'
import {
  DEPTH_STATES,
  FAILURE_REASONS,
  JOB_OPERATIONS,
  type QueueDepth,
  type StorageUse,
  TIERS,
} from './types.ts'

export interface JobMetrics {
  submitted: Counter<'operation' | 'plan'>
  duration: Histogram<'operation' | 'status'>
  failed: Counter<'operation' | 'reason'>
  // submissions refused and results not kept for want of job storage, by budget and stage
  storageRefused: Counter<'limit' | 'stage'>
}

const STORAGE_LIMITS: readonly StorageLimit[] = ['max_job_storage_bytes', 'store']

// The store's job storage, read at scrape time like the queue depth: the same global value from every
// process (aggregate with max); absent for a scrape that cannot read it. No per-workspace series (the
// console shows a workspace its own).
function storageGauges(registry: Registry, storage: () => Promise<StorageUse>): void {
  let last: Promise<StorageUse | undefined> | undefined
  // one read per scrape for both gauges
  const read = () => {
    last ??= storage()
      .catch(() => undefined)
      .finally(() => setImmediate(() => (last = undefined)))
    return last
  }
  new Gauge({
    name: 'anvil_jobs_storage_bytes',
    help: "Bytes every workspace's jobs are counted at (inputs, results, errors, records): docs/jobs.md",
    registers: [registry],
    async collect() {
      this.reset()
      const use = await read()
      if (use) this.set(use.bytes)
    },
  })
  new Gauge({
    name: 'anvil_jobs_storage_max_bytes',
    help: 'The store-wide budget for job data (JOBS_MAX_STORAGE_BYTES); absent when there is none',
    registers: [registry],
    async collect() {
      this.reset()
      const use = await read()
      if (use?.max !== undefined) this.set(use.max)
    },
  })
}

// The operators' Jobs dashboard is built on these names (grafana/). Queue depth is read at scrape time;
// it is the queue's global state, so several processes exporting it agree (aggregate with max). With
// `storage`, the job storage gauges too (gateways export them; workers need not).
export function createJobMetrics(
  registry: Registry,
  depth: () => Promise<QueueDepth>,
  storage?: () => Promise<StorageUse>,
): JobMetrics {
  if (storage) storageGauges(registry, storage)
  new Gauge({
    name: 'anvil_jobs_queue_depth',
    help: 'Jobs per queue (plan tier) and state; completed and failed are the ones still kept',
    labelNames: ['queue', 'state'],
    registers: [registry],
    async collect() {
      this.reset()
      // an unreachable Redis leaves the series absent for this scrape rather than stale
      const counts = await depth().catch(() => undefined)
      if (!counts) return
      for (const queue of TIERS) {
        for (const state of DEPTH_STATES) this.set({ queue, state }, counts[queue][state])
      }
    },
  })
  const metrics: JobMetrics = {
    submitted: new Counter({
      name: 'anvil_jobs_submitted_total',
      help: 'Jobs accepted, by operation and plan',
      labelNames: ['operation', 'plan'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'anvil_jobs_duration_seconds',
      help: 'Time from a worker picking a job up to its result, by operation and final status',
      labelNames: ['operation', 'status'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      registers: [registry],
    }),
    failed: new Counter({
      name: 'anvil_jobs_failed_total',
      help:
        'Job runs that failed, by reason: operation (the input was refused), timeout (compute budget), crash ' +
        '(the worker thread died: out of memory or a bug) end the job; stalled (its worker process died or ' +
        'froze) puts it back in the queue; storage (no room for its result) ends it',
      labelNames: ['operation', 'reason'],
      registers: [registry],
    }),
    storageRefused: new Counter({
      name: 'anvil_jobs_storage_refusals_total',
      help:
        "Job data refused for want of room, by budget (max_job_storage_bytes: the workspace's; store: " +
        'JOBS_MAX_STORAGE_BYTES) and stage (submit: the job was refused; result: the job failed, its result ' +
        'not kept)',
      labelNames: ['limit', 'stage'],
      registers: [registry],
    }),
  }
  // at 0 from boot: the failed-jobs panels and the failure ratio read 0, not "no data"
  const operation = JOB_OPERATIONS
  zeroCounter(metrics.submitted, cross({ operation, plan: PLAN_NAMES }))
  zeroCounter(metrics.failed, cross({ operation, reason: FAILURE_REASONS }))
  zeroHistogram(metrics.duration, cross({ operation, status: ['completed', 'failed'] }))
  zeroCounter(metrics.storageRefused, cross({ limit: STORAGE_LIMITS, stage: ['submit', 'result'] }))
  return metrics
}
