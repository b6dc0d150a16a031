import type { JobMetrics } from './metrics.ts'
import type { JobOutcome } from './types.ts'

// A job that kept losing its worker (each run killed, out of memory in the process, frozen) is not tried
// again: it may be what kills them.
export function stalledOut(stalls: number): JobOutcome {
  return {
    status: 'failed',
    reason: 'stalled',
    error: {
      code: 'ERR_INTERNAL',
      message: `The job's worker stopped ${stalls} times while running it; it is not tried again.`,
      details: { reason: 'stalled', stalls },
    },
  }
}

// Counts a job's end: its duration (ms) when it ran to an outcome, and why it failed. Stalls are counted
// when they happen, so a job given up after stalling is not counted again.
export function recordOutcome(
  metrics: JobMetrics,
  operation: string,
  outcome: JobOutcome,
  durationMs: number | undefined,
): void {
  if (durationMs !== undefined) {
    metrics.duration.observe({ operation, status: outcome.status }, durationMs / 1000)
  }
  if (outcome.status === 'failed' && outcome.reason !== 'stalled') {
    metrics.failed.inc({ operation, reason: outcome.reason })
  }
}
