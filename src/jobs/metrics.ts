import { Counter, Gauge, Histogram, type Registry } from 'prom-client'
import { PLAN_NAMES } from '../limits/plans.ts'
import { cross, zeroCounter, zeroHistogram } from '../observability/zero.ts'
import { DEPTH_STATES, JOB_OPERATIONS, type QueueDepth, TIERS } from './types.ts'

export interface JobMetrics {
  submitted: Counter<'operation' | 'plan'>
  duration: Histogram<'operation' | 'status'>
  failed: Counter<'operation' | 'reason'>
}

// The operators' Jobs dashboard is built on these names (grafana/). Queue depth is read at scrape time;
// it is the queue's global state, so several processes exporting it agree (aggregate with max).
export function createJobMetrics(registry: Registry, depth: () => Promise<QueueDepth>): JobMetrics {
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
        'froze) puts it back in the queue',
      labelNames: ['operation', 'reason'],
      registers: [registry],
    }),
  }
  // at 0 from boot: the failed-jobs panels and the failure ratio read 0, not "no data"
  const operation = JOB_OPERATIONS
  zeroCounter(metrics.submitted, cross({ operation, plan: PLAN_NAMES }))
  zeroCounter(metrics.failed, cross({ operation, reason: ['operation', 'timeout', 'crash', 'stalled'] }))
  zeroHistogram(metrics.duration, cross({ operation, status: ['completed', 'failed'] }))
  return metrics
}
