import { performance } from 'node:perf_hooks'
import type { Task, TaskReply } from '../../workers/protocol.ts'
import { ownsBuffer } from '../lib/raw-json.ts'
import type { Reservation } from './admission.ts'
import { classifyPoolFailure, PoolTaskError, QUEUE_FULL } from './pool-failure.ts'
import type { NamedPool } from './pools.ts'
import type { ProgressProbe } from './progress-board.ts'
import { watchBudget } from './start-board.ts'

// how long a task may wait for a thread before it is refused as overload (at least its budget): long
// enough for a replacement thread to boot, short enough that a client is not left hanging
const MIN_QUEUE_WAIT_MS = 5_000

export interface SubmitOptions {
  workspaceId: string
  // compute budget, counted from when a thread picks the task up (the pool's start board)
  budgetMs: number
  // the place this request was given before its body was read (requests with a pool decision)
  reservation?: Reservation | null
  // the caller's own stop (a job worker shutting down): aborts the task, classified 'stopped'
  stop?: AbortSignal
  // reads what the task's operation reports of its progress, while it runs (jobs)
  progress?: ProgressProbe
}

export interface Submitted {
  reply: TaskReply
  // epoch ms when it was submitted (its wait for a thread is reply.startedAt minus this)
  submittedAt: number
}

// A request's raw body is moved to the thread, not copied: every piece that owns its whole buffer (RawJson
// copies any that does not: a small Buffer may share Node's pool with others). A job's bytes are kept by its submitter (stored after prepare): copied.
function transferable(task: Task): ArrayBuffer[] | undefined {
  if (task.kind !== 'raw') return undefined
  return task.raw.filter(ownsBuffer).map((part) => part.buffer as ArrayBuffer)
}

// The one way work reaches a pool, for requests and jobs: a place on the pool (admission), a slot on its
// start board, a turn at its threads (round-robin across workspaces), then Piscina, under a budget that
// starts when a thread starts the task. Rejects with PoolTaskError (pool-failure.ts) when no reply came.
export async function submitTask(pool: NamedPool, task: Task, options: SubmitOptions): Promise<Submitted> {
  const { workspaceId, budgetMs, reservation, stop, progress } = options
  if (!pool.admission.start(reservation ?? undefined, workspaceId)) {
    throw new PoolTaskError('overloaded', QUEUE_FULL)
  }
  const slot = pool.starts.acquire()
  if (slot === undefined) {
    pool.admission.finish(workspaceId)
    throw new PoolTaskError('overloaded', QUEUE_FULL)
  }
  pool.progress.reset(slot)
  progress?.attach(() => pool.progress.read(slot))
  const submittedAt = performance.timeOrigin + performance.now()
  const controller = new AbortController()
  const signal = stop ? AbortSignal.any([controller.signal, stop]) : controller.signal
  const maxWait = Math.max(budgetMs, MIN_QUEUE_WAIT_MS)
  const stopWatching = watchBudget(pool.starts, slot, budgetMs, maxWait, controller)
  let turn = false
  try {
    await pool.admission.turns.acquire(workspaceId, signal)
    turn = true
    const transferList = transferable(task)
    const reply = (await pool.piscina.run({ ...task, slot }, { signal, transferList })) as TaskReply
    return { reply, submittedAt }
  } catch (err) {
    const kind = classifyPoolFailure(err, controller.signal.reason, stop?.aborted === true)
    throw new PoolTaskError(kind, err, pool.starts.startedAt(slot))
  } finally {
    stopWatching()
    progress?.detach()
    if (turn) pool.admission.turns.release()
    pool.starts.release(slot)
    pool.admission.finish(workspaceId)
  }
}
