import { AppError } from '../errors.ts'
import { capExceeded } from '../limits/tenant-caps.ts'
import type { JobOutcome } from './types.ts'

// Job storage budgets (docs/jobs.md, "Job storage"). Every job is counted, from submission until its
// record is gone, as the bytes of what it keeps (its input until it finishes, then its result or error)
// plus a fixed cost per job for its record (JOB_RECORD_BYTES). Two budgets hold at once: the
// workspace's (the plan's max_job_storage_bytes, overridable per workspace) and the store's
// (JOBS_MAX_STORAGE_BYTES, sized from Redis's maxmemory or the disk), so that job data never fills the
// Redis that decides limits, nor the disk the embedded store writes to.

// which budget had no room
export type StorageLimit = 'max_job_storage_bytes' | 'store'

// A change to a job's count: taken when both budgets have room for it (a count that shrinks always is).
export type Reservation =
  | { ok: true }
  | { ok: false; limit: StorageLimit; max: number; stored: number; bytes: number }

export interface StorageBudgets {
  // the workspace's budget
  workspace: number
  // the store's; undefined: none (a Redis without maxmemory and no JOBS_MAX_STORAGE_BYTES)
  store: number | undefined
}

// What one job costs beside the bytes it keeps, an upper bound on both backends. On Redis: its record's
// other fields (~1.1 KB), BullMQ's job hash (~1.3 KB) and its queue, event and finished entries, its
// entries in the workspace's lists and in-flight set and in the ledger: INFO's used_memory grew by ~2.5-3.3
// KB per queued job and ~4 KB per finished one on Redis 7 (hundreds of jobs; test/jobs/job-storage.test.ts
// checks the count stays above the growth). On disk: the record file (one 4 KiB block) and the unused end
// of the input's or result's last block.
export const JOB_RECORD_BYTES = 8 * 1024

// What a job counts while it holds `data` bytes (its input, result or error).
export const jobBytes = (data: number) => data + JOB_RECORD_BYTES

// The decision both backends take (the Redis one in job-bytes.lua, with the same comparisons): a count
// going from `old` to `bytes` fits when what is held with it is at most the budget.
export function reserve(
  held: { workspace: number; store: number },
  old: number,
  bytes: number,
  max: StorageBudgets,
): Reservation {
  const delta = bytes - old
  if (delta <= 0) return { ok: true }
  if (held.workspace + delta > max.workspace)
    return { ok: false, limit: 'max_job_storage_bytes', max: max.workspace, stored: held.workspace, bytes }
  if (max.store !== undefined && held.store + delta > max.store)
    return { ok: false, limit: 'store', max: max.store, stored: held.store, bytes }
  return { ok: true }
}

export type Refusal = Extract<Reservation, { ok: false }>

// A submission without room: the workspace's budget is its own (409 ERR_CONFLICT {limit, max}, like every
// tenant cap, charged); the store's is the service's capacity (503, refunded, Retry-After).
export function submitRefused(r: Refusal): AppError {
  if (r.limit === 'max_job_storage_bytes')
    return capExceeded('max_job_storage_bytes', r.max, { stored: r.stored, bytes: r.bytes })
  return new AppError('ERR_JOB_STORAGE_FULL', undefined, undefined, { 'retry-after': '60' })
}

// A result without room: the job fails, its result is not kept (as with max_job_result_bytes). The error
// is small and always kept: a failed job counts its error, not its input.
export function resultRefused(r: Refusal): JobOutcome {
  if (r.limit === 'max_job_storage_bytes') {
    return {
      status: 'failed',
      reason: 'storage',
      error: {
        code: 'ERR_RESULT_TOO_LARGE',
        message: `The job's result does not fit in the workspace's job storage (max_job_storage_bytes ${r.max}).`,
        details: { limit: r.limit, max: r.max, stored: r.stored, bytes: r.bytes },
      },
    }
  }
  return {
    status: 'failed',
    reason: 'storage',
    error: {
      code: 'ERR_JOB_STORAGE_FULL',
      message: "The job's result does not fit in this service's job storage; submit it again later.",
    },
  }
}

// The bytes a job's outcome keeps: its result text, or its error as stored (JSON).
export function outcomeBytes(outcome: JobOutcome): number {
  return Buffer.byteLength(outcome.status === 'completed' ? outcome.result : JSON.stringify(outcome.error))
}
