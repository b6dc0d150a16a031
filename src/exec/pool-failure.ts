import { QUEUE_TIMEOUT } from './start-board.ts'

// The one classification of a pool task that did not come back with a reply, for requests (dispatch.ts)
// and jobs (src/jobs/) alike:
// - overloaded: refused before it ran (the pool's places were taken, or it waited too long for a thread):
//   load, not the task's cost, and worth retrying shortly
// - timeout: killed at its compute budget (Piscina terminates the thread and starts a replacement)
// - oom: its thread ran out of memory (the thread is replaced)
// - stopped: the caller gave up on it (shutdown); nothing about the task itself
// - unclonable: its input or reply could not cross the thread boundary (structured clone recursion)
// - crash: anything else, a bug
export type PoolFailureKind = 'overloaded' | 'timeout' | 'oom' | 'stopped' | 'unclonable' | 'crash'

// Piscina's message for a task refused by a full queue; matched here and nowhere else
const QUEUE_FULL_MESSAGE = 'Task queue is at limit'

export class PoolTaskError extends Error {
  override name = 'PoolTaskError'
  readonly kind: PoolFailureKind
  // epoch ms the task started on a thread (undefined: it never started)
  readonly startedAt: number | undefined

  constructor(kind: PoolFailureKind, cause: unknown, startedAt?: number) {
    super(`pool task failed: ${kind}`, { cause })
    this.kind = kind
    this.startedAt = startedAt
  }
}

export const QUEUE_FULL = new Error(QUEUE_FULL_MESSAGE)

function isAbort(err: unknown): boolean {
  return (
    err instanceof Error && (err.name === 'AbortError' || (err as { code?: string }).code === 'ABORT_ERR')
  )
}

// `abortReason`: why the submitter aborted the task (QUEUE_TIMEOUT, BUDGET_EXCEEDED or the caller's stop).
export function classifyPoolFailure(err: unknown, abortReason?: unknown, stopped = false): PoolFailureKind {
  if (err instanceof Error && err.message === QUEUE_FULL_MESSAGE) return 'overloaded'
  if (isAbort(err)) {
    if (abortReason === QUEUE_TIMEOUT) return 'overloaded'
    return stopped ? 'stopped' : 'timeout'
  }
  if ((err as { code?: string } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY') return 'oom'
  if (err instanceof RangeError) return 'unclonable'
  return 'crash'
}
