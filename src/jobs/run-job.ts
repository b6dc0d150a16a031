import type { Task } from '../../workers/protocol.ts'
import { errorValue } from '../errors.ts'
import { failureError, POOL_FAILURES } from '../exec/pool-failure.ts'
import type { PoolSet } from '../exec/pools.ts'
import type { ProgressProbe } from '../exec/progress-board.ts'
import { submit } from '../exec/submit.ts'
import type { JobMeta, JobOutcome } from './types.ts'

// The pool has no room for the task: nobody's fault, and worth trying again shortly.
export class PoolBusyError extends Error {
  override name = 'PoolBusyError'
}

const NO_CAPS = Object.freeze({})

// Runs a job on its workspace's pool under the job budget, through the one submit (src/exec/submit.ts:
// admission, fair turns, a budget counted from when a thread starts the task). Resolves with how the job
// ended; rejects only when it did not end: `stop` aborted (shutdown, a cancel) or the pool was full
// (PoolBusyError). `progress` reads, while the task runs, the fraction its operation has reported (the
// caller stores it on the job's record).
export async function runJob(
  pools: PoolSet,
  job: Pick<JobMeta, 'workspace_id' | 'tier' | 'budget_ms' | 'max_result_bytes'>,
  input: Uint8Array,
  stop: AbortSignal,
  progress?: ProgressProbe,
): Promise<JobOutcome> {
  // job ops declare no caps (defineOp refuses both: src/ops/define.ts)
  const task: Task = {
    kind: 'job.run',
    raw: input,
    maxResultBytes: job.max_result_bytes,
    caps: NO_CAPS,
    tenant: job.workspace_id,
  }
  const outcome = await submit(pools, task, {
    workspaceId: job.workspace_id,
    tier: job.tier,
    budgetMs: job.budget_ms,
    stop,
    ...(progress ? { progress } : {}),
  })
  if (outcome.ok) return { status: 'completed', result: outcome.reply.json! }
  const { failure } = outcome
  if (failure.kind === 'overloaded') throw new PoolBusyError(`pool ${outcome.pool} is full`)
  // not ended: the caller stopped it (it is handed back, or recorded cancelled)
  if (failure.kind === 'stopped' || (failure.kind !== 'refused' && stop.aborted))
    throw Object.assign(new Error('the job run was stopped'), {
      cause: 'cause' in failure ? failure.cause : undefined,
    })
  const error = errorValue(failureError(failure, { subject: 'The job' }))
  // the one failure table says why (src/exec/pool-failure.ts): the kinds that do not end a job were handled above
  const failed: JobOutcome = {
    status: 'failed',
    error,
    reason: POOL_FAILURES[failure.kind].jobReason ?? 'crash',
  }
  // a crash's cause goes to the worker's log
  return 'cause' in failure ? { ...failed, cause: failure.cause } : failed
}
