import { performance } from 'node:perf_hooks'
import type { Piscina } from 'piscina'
import type { Task, TaskReply } from '../../workers/protocol.ts'
import {
  METER_BUSY,
  METER_BYTES,
  type StreamTask,
  type StreamTaskResult,
} from '../../workers/stream-protocol.ts'
import { ownsBuffer } from '../lib/own-bytes.ts'
import type { Reservation } from './admission.ts'
import type { PoolMetrics } from './metrics.ts'
import { classifyPoolFailure, POOL_FAILURES, type PoolFailure } from './pool-failure.ts'
import type { NamedPool, PoolSet, Tier } from './pools.ts'
import type { ProgressProbe } from './progress-board.ts'
import { watchBudget, watchMeter } from './start-board.ts'

// how long a task may wait for a thread before it is refused as overload (at least its budget): long
// enough for a replacement thread to boot, short enough that a client is not left hanging
const MIN_QUEUE_WAIT_MS = 5_000

// Whose work it is: the pool is the workspace's dedicated pool, else its plan tier's (PoolSet.pick).
export interface Tenant {
  workspaceId: string
  tier: Tier
}

// Counted in the pool metrics under this op: requests and streamed bodies (jobs are counted by the job
// metrics, src/jobs/metrics.ts).
export interface Count {
  metrics: PoolMetrics
  op: string
}

export interface Submission extends Tenant {
  // compute budget: running time counted from when a thread picks the task up (the pool's start board),
  // or, with `meter`, the CPU time its thread meters
  budgetMs: number
  // the place this request was given before its body was read (reserve, below)
  reservation?: Reservation | null
  // the caller's own stop (a job worker shutting down, a job cancelled, a streamed body's client gone):
  // aborts the task, a failure of kind 'stopped'
  stop?: AbortSignal
  // reads what the task's operation reports of its progress, while it runs (jobs)
  progress?: ProgressProbe
  // a streamed body's meter (workers/stream-protocol.ts): its budget is the CPU time its thread meters
  meter?: Float64Array
  count?: Count
  // what the task holds outside the V8 heap while it runs (argon2's and scrypt's memory): taken from the
  // pool's memory budget before it runs, given back when it ends (memory-gate.ts)
  memoryBytes?: number
  // true when memoryBytes is only the most the task may hold (a body parsed on the thread, whose request is
  // not known yet; Infinity when the op cannot say): then at most the pool's budget is taken, and the
  // thread refuses a request that asks more than was taken (workers/entry.ts)
  memoryBound?: boolean
}

type Replied<R> = Extract<R, { ok: true }>

// What became of a task: its reply, with where it ran and how long it waited for a thread and ran on it
// (ms), or the failure (src/exec/pool-failure.ts: one table turns it into the client's error). A task
// never rejects: an exception here is a bug.
export type Outcome<R> =
  | { ok: true; reply: Replied<R>; pool: string; waitMs: number; runMs: number }
  | { ok: false; failure: PoolFailure; pool: string }

const now = () => performance.timeOrigin + performance.now()

type TransferList = NonNullable<Parameters<Piscina['run']>[1]>['transferList']

// What moves to the thread instead of being copied: a request's raw body (every piece that owns its whole
// buffer: RawJson copies any that does not, a small Buffer may share Node's pool with others), a streamed
// body's port. A job's bytes are kept by its submitter (stored after prepare): copied.
function transferable(task: Task | StreamTask): TransferList | undefined {
  if (task.kind === 'stream') return [task.port] as TransferList
  if (task.kind !== 'op' || task.raw === undefined) return undefined
  return task.raw.filter(ownsBuffer).map((part) => part.buffer as ArrayBuffer)
}

// The pool metrics of one task, when it is counted.
function record(count: Count | undefined, pool: string) {
  const m = count?.metrics
  const op = count?.op ?? ''
  return {
    replied(waitMs: number, runMs: number, outcome: 'ok' | 'error' | 'timeout' | undefined): void {
      if (!m) return
      m.dispatch.inc({ op, mode: 'pool' })
      m.wait.observe({ pool, op }, waitMs / 1000)
      m.run.observe({ pool, op }, runMs / 1000)
      m.busy.inc({ pool }, runMs / 1000)
      if (outcome) m.outcomes.inc({ pool, op, outcome })
    },
    failed(kind: PoolFailure['kind'], busyMs: number | undefined): void {
      if (!m) return
      const row = POOL_FAILURES[kind]
      if (row.dispatched) m.dispatch.inc({ op, mode: 'pool' })
      if (row.outcome) m.outcomes.inc({ pool, op, outcome: row.outcome })
      if (row.threadLost === true || (row.threadLost === 'if started' && busyMs !== undefined))
        m.restarts.inc({ pool })
      // a task killed (budget, out of memory), stopped or crashed held its thread from its start until now
      if (busyMs !== undefined) m.busy.inc({ pool }, busyMs / 1000)
    },
  }
}

// The one way work reaches a pool, for requests, streamed bodies and jobs: a place on the pool (admission;
// the request's reservation if it holds one), a slot on its start board, a turn at its threads
// (round-robin across workspaces, fair-turns.ts), then Piscina, under a budget that starts when a thread
// starts the task. Resolves to the task's outcome.
export function submit(pools: PoolSet, task: Task, s: Submission): Promise<Outcome<TaskReply>>
export function submit(pools: PoolSet, task: StreamTask, s: Submission): Promise<Outcome<StreamTaskResult>>
export async function submit(
  pools: PoolSet,
  task: Task | StreamTask,
  s: Submission,
): Promise<Outcome<TaskReply | StreamTaskResult>> {
  const pool = pools.pick(s.workspaceId, s.tier)
  const metrics = record(s.count, pool.name)
  const refused = (): Outcome<never> => {
    metrics.failed('overloaded', undefined)
    return { ok: false, failure: { kind: 'overloaded' }, pool: pool.name }
  }
  // admission by memory: wait (as long as a task may wait for a thread) for the off-heap memory it needs.
  // More than the whole budget never fits: a known need is refused now (422, not worth retrying); a bound
  // (an unknown amount included) is charged the whole budget, the task then running alone, and the thread
  // holds the parsed request to what was taken.
  let bytes = s.memoryBytes ?? 0
  if (bytes > pool.memory.budget) {
    if (!s.memoryBound) {
      metrics.failed('memory', undefined)
      return {
        ok: false,
        failure: { kind: 'memory', bytes, budgetBytes: pool.memory.budget },
        pool: pool.name,
      }
    }
    bytes = pool.memory.budget
  }
  if (s.memoryBound && task.kind === 'op') task.memoryBytes = bytes
  if (!pool.admission.start(s.reservation ?? undefined, s.workspaceId)) return refused()
  // wait (as long as a task may wait for a thread) for the off-heap memory
  const granted = pool.memory.acquire(s.workspaceId, bytes, Math.max(s.budgetMs, MIN_QUEUE_WAIT_MS))
  if (granted !== true && !(await granted)) {
    pool.admission.finish(s.workspaceId)
    return refused()
  }
  const slot = pool.starts.acquire()
  if (slot === undefined) {
    pool.memory.release(s.workspaceId, bytes)
    pool.admission.finish(s.workspaceId)
    return refused()
  }
  pool.progress.reset(slot)
  s.progress?.attach(() => pool.progress.read(slot))
  const submittedAt = now()
  const controller = new AbortController()
  const signal = s.stop ? AbortSignal.any([controller.signal, s.stop]) : controller.signal
  const stopWatching = watch(pool, slot, s, controller)
  let turn = false
  try {
    await pool.admission.turns.acquire(s.workspaceId, signal)
    turn = true
    const transferList = transferable(task)
    const reply = (await pool.piscina.run({ ...task, slot }, { signal, transferList })) as
      | TaskReply
      | StreamTaskResult
    const waitMs = Math.max(0, reply.startedAt - submittedAt)
    if (!reply.ok) {
      // a streamed body's thread that stopped itself at the budget: the same outcome as a task killed there
      if ('overBudget' in reply) {
        metrics.replied(waitMs, reply.runMs, 'timeout')
        const failure = {
          kind: 'timeout' as const,
          budgetMs: s.budgetMs,
          bytesProcessed: reply.bytesProcessed,
        }
        return { ok: false, failure, pool: pool.name }
      }
      metrics.replied(waitMs, reply.runMs, 'error')
      return { ok: false, failure: { kind: 'refused', error: reply.error }, pool: pool.name }
    }
    // a streamed body whose client went away ended early: it has no outcome of its own
    metrics.replied(waitMs, reply.runMs, 'cancelled' in reply && reply.cancelled ? undefined : 'ok')
    return { ok: true, reply, pool: pool.name, waitMs, runMs: reply.runMs }
  } catch (err) {
    const failure = failureOf(err, controller.signal.reason, s)
    const startedAt = pool.starts.startedAt(slot)
    // the thread time it held: what a streamed body's thread metered, else the wall time since it started
    const busyMs = startedAt === undefined ? undefined : s.meter ? s.meter[METER_BUSY]! : now() - startedAt
    metrics.failed(failure.kind, busyMs)
    return { ok: false, failure, pool: pool.name }
  } finally {
    stopWatching()
    s.progress?.detach()
    if (turn) pool.admission.turns.release()
    pool.starts.release(slot)
    pool.memory.release(s.workspaceId, bytes)
    pool.admission.finish(s.workspaceId)
  }
}

function failureOf(err: unknown, abortReason: unknown, s: Submission): PoolFailure {
  const kind = classifyPoolFailure(err, abortReason, s.stop?.aborted === true)
  switch (kind) {
    case 'overloaded':
    case 'oom':
      return { kind }
    case 'timeout':
      return s.meter
        ? { kind, budgetMs: s.budgetMs, bytesProcessed: s.meter[METER_BYTES]! }
        : { kind, budgetMs: s.budgetMs }
    default:
      return { kind, cause: err }
  }
}

// The budget watch: wall time from the start board, or a streamed body's metered CPU time. A task that
// waits longer than max(budget, 5 s) for a thread is refused as overload.
function watch(pool: NamedPool, slot: number, s: Submission, controller: AbortController): () => void {
  const maxWait = Math.max(s.budgetMs, MIN_QUEUE_WAIT_MS)
  return s.meter
    ? watchMeter(pool.starts, slot, s.budgetMs, maxWait, controller, s.meter)
    : watchBudget(pool.starts, slot, s.budgetMs, maxWait, controller)
}

// A place on the tenant's pool for a request whose body has yet to arrive: at once, or after waiting up
// to `waitMs` for one; `admitted` false when the pool stayed full (refuse it before reading the body:
// counted as an `overloaded` task of `count.op`, like a full queue at submission). Given back with
// cancel() when its request ends without running its task; taken up by submit() otherwise.
export function reserve(
  pools: PoolSet,
  tenant: Tenant,
  waitMs: number,
  count?: Count,
): { reservation: Reservation; admitted: Promise<boolean>; pool: string } {
  const pool = pools.pick(tenant.workspaceId, tenant.tier)
  const onRefused = () => record(count, pool.name).failed('overloaded', undefined)
  return { ...pool.admission.reserve(tenant.workspaceId, waitMs, onRefused), pool: pool.name }
}

export function cancel(pools: PoolSet, tenant: Tenant, reservation: Reservation): void {
  pools.pick(tenant.workspaceId, tenant.tier).admission.cancel(reservation)
}
