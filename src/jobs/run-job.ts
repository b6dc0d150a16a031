import type { Task, TaskReply } from '../../workers/protocol.ts'
import { ERRORS } from '../errors.ts'
import { PoolTaskError } from '../exec/pool-failure.ts'
import type { NamedPool, PoolSet } from '../exec/pools.ts'
import type { ProgressProbe } from '../exec/progress-board.ts'
import { submitTask } from '../exec/submit.ts'
import type { JobError, JobMeta, JobOutcome } from './types.ts'

// The pool has no room for the task: nobody's fault, and worth trying again shortly.
export class PoolBusyError extends Error {
  override name = 'PoolBusyError'
}

// Runs a job task (kinds 'job.prepare', 'job.run') on a pool the way the dispatcher runs a request's:
// the same submission (src/exec/submit.ts: admission, fair turns, a budget counted from when a thread
// starts the task) and the same failure classes (src/exec/pool-failure.ts). An overloaded pool rejects
// with PoolBusyError; other failures reject with PoolTaskError.
export async function onPool(
  pool: NamedPool,
  task: Task,
  options: { workspaceId: string; budgetMs: number; stop?: AbortSignal; progress?: ProgressProbe },
): Promise<TaskReply> {
  try {
    return (await submitTask(pool, task, options)).reply
  } catch (err) {
    if (err instanceof PoolTaskError && err.kind === 'overloaded') {
      throw new PoolBusyError(`pool ${pool.name} is full`, { cause: err })
    }
    throw err
  }
}

// Codes the gateway does not know (a newer worker) are shown as ERR_INTERNAL, as the dispatcher does.
export function knownError(error: JobError): JobError {
  return Object.hasOwn(ERRORS, error.code)
    ? error
    : { code: 'ERR_INTERNAL', message: ERRORS.ERR_INTERNAL.message }
}

// Runs a job on its workspace's pool under the job budget. Resolves with how the job ended; rejects only
// when it did not end: `stop` aborted (shutdown) or the pool was full (PoolBusyError). `progress` reads, while
// the task runs, the fraction its operation has reported (the caller stores it on the job's record).
export async function runJob(
  pools: PoolSet,
  job: Pick<JobMeta, 'workspace_id' | 'tier' | 'budget_ms' | 'max_result_bytes'>,
  input: Uint8Array,
  stop: AbortSignal,
  progress?: ProgressProbe,
): Promise<JobOutcome> {
  const pool = pools.pick(job.workspace_id, job.tier)
  const task: Task = { kind: 'job.run', raw: input, maxResultBytes: job.max_result_bytes }
  try {
    const options = { workspaceId: job.workspace_id, budgetMs: job.budget_ms, stop }
    const reply = await onPool(pool, task, progress ? { ...options, progress } : options)
    if (reply.ok) return { status: 'completed', result: reply.json! }
    return { status: 'failed', error: knownError(reply.error as JobError), reason: 'operation' }
  } catch (err) {
    if (stop.aborted || err instanceof PoolBusyError) throw err
    const kind = err instanceof PoolTaskError ? err.kind : 'crash'
    // Piscina terminates the thread of an aborted task, or of one out of memory, and starts another
    if (kind === 'timeout') {
      const message = `The job exceeded its ${job.budget_ms} ms compute budget.`
      const details = { reason: 'time', budget_ms: job.budget_ms }
      return { status: 'failed', error: { code: 'ERR_COMPUTE_LIMIT', message, details }, reason: 'timeout' }
    }
    if (kind === 'oom') {
      const message = "The job exceeded the plan's memory budget."
      const error = { code: 'ERR_COMPUTE_LIMIT', message, details: { reason: 'memory' } }
      return { status: 'failed', error, reason: 'crash' }
    }
    const error = { code: 'ERR_INTERNAL', message: ERRORS.ERR_INTERNAL.message }
    return { status: 'failed', error, reason: 'crash', cause: err instanceof PoolTaskError ? err.cause : err }
  }
}
