import { ERRORS } from '../errors.ts'
import type { NamedPool, PoolSet } from '../exec/pools.ts'
import type { RunTask, TaskReply } from './task.ts'
import type { JobError, JobMeta, JobOutcome } from './types.ts'

const TASK = new URL('./task.ts', import.meta.url).href

// The pool has no room for the task: nobody's fault, and worth trying again shortly.
export class PoolBusyError extends Error {
  override name = 'PoolBusyError'
}

export function isAbort(err: unknown): boolean {
  return (
    err instanceof Error && (err.name === 'AbortError' || (err as { code?: string }).code === 'ABORT_ERR')
  )
}

export function isOutOfMemory(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY'
}

// Runs one of task.ts's functions on a pool, counted against the pool's capacity as the dispatcher
// counts synchronous work, so neither can crowd the other out unseen.
export async function onPool<T>(
  pool: NamedPool,
  name: 'prepare' | 'run',
  task: Uint8Array | RunTask,
  signal: AbortSignal,
): Promise<TaskReply<T>> {
  if (!pool.admission.start()) throw new PoolBusyError(`pool ${pool.name} is full`)
  try {
    return (await pool.piscina.run(task, { filename: TASK, name, signal })) as TaskReply<T>
  } catch (err) {
    if (err instanceof Error && err.message === 'Task queue is at limit') throw new PoolBusyError(err.message)
    throw err
  } finally {
    pool.admission.finish()
  }
}

// Codes the gateway does not know (a newer worker) are shown as ERR_INTERNAL, as the dispatcher does.
export function knownError(error: JobError): JobError {
  return Object.hasOwn(ERRORS, error.code)
    ? error
    : { code: 'ERR_INTERNAL', message: ERRORS.ERR_INTERNAL.message }
}

// Runs a job on its workspace's pool under the job budget. Resolves with how the job ended; rejects only
// when it did not end: `stop` aborted (shutdown) or the pool was full (PoolBusyError).
export async function runJob(
  pools: PoolSet,
  job: Pick<JobMeta, 'workspace_id' | 'tier' | 'budget_ms' | 'max_result_bytes'>,
  input: Uint8Array,
  stop: AbortSignal,
): Promise<JobOutcome> {
  const pool = pools.pick(job.workspace_id, job.tier)
  const budget = AbortSignal.timeout(job.budget_ms)
  const task: RunTask = { input, maxResultBytes: job.max_result_bytes }
  try {
    const reply = await onPool<string>(pool, 'run', task, AbortSignal.any([budget, stop]))
    if (reply.ok) return { status: 'completed', result: reply.value }
    return { status: 'failed', error: knownError(reply.error), reason: 'operation' }
  } catch (err) {
    if (stop.aborted || err instanceof PoolBusyError) throw err
    // Piscina terminates the thread of an aborted task, or of one out of memory, and starts another
    if (budget.aborted) {
      const message = `The job exceeded its ${job.budget_ms} ms compute budget.`
      const details = { reason: 'time', budget_ms: job.budget_ms }
      return { status: 'failed', error: { code: 'ERR_COMPUTE_LIMIT', message, details }, reason: 'timeout' }
    }
    if (isOutOfMemory(err)) {
      const message = "The job exceeded the plan's memory budget."
      const error = { code: 'ERR_COMPUTE_LIMIT', message, details: { reason: 'memory' } }
      return { status: 'failed', error, reason: 'crash' }
    }
    const error = { code: 'ERR_INTERNAL', message: ERRORS.ERR_INTERNAL.message }
    return { status: 'failed', error, reason: 'crash', cause: err }
  }
}
