import { AppError, type ErrorValue, fromErrorValue, overMemoryBudget, overTimeBudget } from '../errors.ts'
import type { PoolOutcome } from './metrics.ts'
import { QUEUE_TIMEOUT } from './start-board.ts'

// How a pool task can fail, for requests, streamed bodies and jobs alike (src/exec/submit.ts):
// - refused: the task's own answer, an expected failure (bad input, an op's limit) sent back as a value
// - overloaded: refused before it ran (the pool's places were taken, or it waited too long for a thread):
//   load, not the task's cost, and worth retrying shortly
// - memory: refused before it ran: it needs more off-heap memory than the pool's whole budget, so it never
//   could run (not worth retrying)
// - timeout: killed at its compute budget (Piscina terminates the thread and starts a replacement)
// - oom: its thread ran out of memory (the thread is replaced)
// - stopped: the caller gave up on it (shutdown, a job cancelled, the client gone); nothing about the task
// - unclonable: its input or reply could not cross the thread boundary (structured clone recursion)
// - crash: anything else, a bug
export type PoolFailure =
  | { kind: 'refused'; error: ErrorValue }
  | { kind: 'overloaded' }
  | { kind: 'memory'; bytes: number; budgetBytes: number }
  | { kind: 'timeout'; budgetMs: number; bytesProcessed?: number }
  | { kind: 'oom' }
  | { kind: 'stopped'; cause: unknown }
  | { kind: 'unclonable'; cause: unknown }
  | { kind: 'crash'; cause: unknown }

export type PoolFailureKind = PoolFailure['kind']

export interface FailureWording {
  // what the budgets' messages name: "The operation", "The job", "Reading the job"
  subject: string
  // the pool, named in an overload's details (a metric label: free, paid, dedicated-N)
  pool?: string
}

interface Row<K extends PoolFailureKind> {
  // what the client is answered (its status is its code's, src/errors.ts)
  error(failure: Extract<PoolFailure, { kind: K }>, wording: FailureWording): AppError
  // how anvil_pool_tasks_total counts it (undefined: not an outcome of the task's)
  outcome: PoolOutcome | undefined
  // whether anvil_dispatch_total counts it as pool work: not when it never reached a thread (refused at
  // the door) or could not cross to one (then it runs inline, and is counted there)
  dispatched: boolean
  // whether its thread was lost and replaced (anvil_pool_worker_restarts_total): Piscina terminates the
  // thread of an aborted task, or of one out of memory, and starts another
  threadLost: boolean | 'if started'
  // why a job that ran failed (its record's `reason`); undefined: the job did not end (a full pool puts it
  // back in the queue, a stop hands it back or records it cancelled)
  jobReason: JobFailureReason | undefined
}

// A job's failure reasons (src/jobs/types.ts JobOutcome): its operation refused it, it ran out of time, or
// its run crashed (out of memory included).
export type JobFailureReason = 'operation' | 'timeout' | 'crash'

const internal = (failure: { cause: unknown }) =>
  // the client sees ERR_INTERNAL only; the cause stays on the error for the log (with the request id)
  Object.assign(new AppError('ERR_INTERNAL'), { cause: failure.cause })

// The one table from a pool failure to the client's error and the pool metrics, for every caller: the
// dispatcher, streamed bodies, job runs and job submissions.
export const POOL_FAILURES: { readonly [K in PoolFailureKind]: Row<K> } = {
  refused: {
    error: (f) => fromErrorValue(f.error),
    outcome: 'error',
    dispatched: true,
    threadLost: false,
    jobReason: 'operation',
  },
  overloaded: {
    // load, not the request's fault: worth retrying shortly
    error: (_, w) =>
      new AppError('ERR_OVERLOADED', undefined, w.pool === undefined ? undefined : { pool: w.pool }, {
        'retry-after': '1',
      }),
    outcome: 'overloaded',
    dispatched: false,
    threadLost: false,
    jobReason: undefined,
  },
  memory: {
    error: (f, w) => overMemoryBudget(w.subject, f.bytes, f.budgetBytes),
    outcome: 'error',
    dispatched: false,
    threadLost: false,
    jobReason: 'operation',
  },
  timeout: {
    error: (f, w) =>
      overTimeBudget(
        w.subject,
        f.budgetMs,
        f.bytesProcessed === undefined ? {} : { bytes_processed: f.bytesProcessed },
      ),
    outcome: 'timeout',
    dispatched: true,
    threadLost: true,
    jobReason: 'timeout',
  },
  oom: {
    error: (_, w) =>
      new AppError('ERR_COMPUTE_LIMIT', `${w.subject} exceeded the plan's memory budget.`, {
        reason: 'memory',
      }),
    outcome: 'oom',
    dispatched: true,
    threadLost: true,
    jobReason: 'crash',
  },
  crash: { error: internal, outcome: 'crash', dispatched: true, threadLost: true, jobReason: 'crash' },
  // the caller's own stop: nothing about the task; its thread is lost if it had started
  stopped: {
    error: internal,
    outcome: undefined,
    dispatched: true,
    threadLost: 'if started',
    jobReason: undefined,
  },
  // never ran (the dispatcher answers it inline, where the op's own depth guard refuses it; a job's run
  // cannot, and fails as a crash)
  unclonable: {
    error: internal,
    outcome: undefined,
    dispatched: false,
    threadLost: false,
    jobReason: 'crash',
  },
}

// The client error of a pool failure.
export function failureError(failure: PoolFailure, wording: FailureWording): AppError {
  const row = POOL_FAILURES[failure.kind] as Row<PoolFailureKind>
  return row.error(failure as never, wording)
}

// Piscina's message for a task refused by a full queue; matched here and nowhere else
const QUEUE_FULL_MESSAGE = 'Task queue is at limit'

function isAbort(err: unknown): boolean {
  return (
    err instanceof Error && (err.name === 'AbortError' || (err as { code?: string }).code === 'ABORT_ERR')
  )
}

// The one classification of a pool task that did not come back with a reply. `abortReason`: why the
// submitter aborted the task (QUEUE_TIMEOUT, BUDGET_EXCEEDED); `stopped`: the caller's own stop fired.
export function classifyPoolFailure(
  err: unknown,
  abortReason?: unknown,
  stopped = false,
): Exclude<PoolFailureKind, 'refused' | 'memory'> {
  if (err instanceof Error && err.message === QUEUE_FULL_MESSAGE) return 'overloaded'
  if (isAbort(err)) {
    if (abortReason === QUEUE_TIMEOUT) return 'overloaded'
    return stopped ? 'stopped' : 'timeout'
  }
  if ((err as { code?: string } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY') return 'oom'
  if (err instanceof RangeError) return 'unclonable'
  return 'crash'
}
