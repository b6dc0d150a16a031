import { performance } from 'node:perf_hooks'
import { AppError, ERRORS, type ErrorCode } from '../errors.ts'
import type { PlanLimits } from '../limits/plans.ts'
import { batchedChild } from '../observability/batched-counter.ts'
import { OPERATIONS, type OpInput, type OpName, type OpOutput } from '../ops/registry.ts'
import type { Reservation } from './admission.ts'
import type { PoolMetrics } from './metrics.ts'
import type { NamedPool, PoolSet } from './pools.ts'
import { QUEUE_TIMEOUT, watchBudget } from './start-board.ts'
import type { OpTask, OpTaskResult } from './task-types.ts'

export interface DispatchContext {
  workspaceId: string
  limits: PlanLimits
  // size of the request body in bytes, the cost estimate
  bytes: number
  // the place this request was given on its pool before its body was read (see reserve)
  reservation?: Reservation
}

export interface Dispatched<T> {
  value: T
  // for Server-Timing: where it ran and how long it waited and ran (ms)
  where: string
  waitMs: number
  runMs: number
}

export interface Dispatcher {
  run<N extends OpName>(name: N, input: OpInput<N>, ctx: DispatchContext): Promise<Dispatched<OpOutput<N>>>
  // a raw JSON body, parsed, validated, run and serialized on the pool: resolves to the data's JSON text
  runRaw(name: OpName, bytes: Uint8Array, ctx: DispatchContext): Promise<Dispatched<string>>
  // a place on the pool this request would use, held while its body arrives: at once, or after waiting
  // up to `waitMs` for one; admitted false when the pool stayed full (refuse it before reading the body)
  // (a refusal counts as an `overloaded` task of `op`, like a full queue at dispatch)
  reserve(
    ctx: Omit<DispatchContext, 'bytes'>,
    waitMs: number,
    op: OpName,
  ): { reservation: Reservation; admitted: Promise<boolean> }
  // gives a reservation back when its request ends without running its task
  cancel(ctx: Omit<DispatchContext, 'bytes'>, reservation: Reservation): void
}

const QUEUE_FULL = new Error('Task queue is at limit')
// how long a task may wait for a thread before it is refused as overload (at least the plan's budget):
// long enough for a replacement thread to boot, short enough that a client is not left hanging
const MIN_QUEUE_WAIT_MS = 5_000

function isAbort(err: unknown): boolean {
  return (
    err instanceof Error && (err.name === 'AbortError' || (err as { code?: string }).code === 'ABORT_ERR')
  )
}

function isOom(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY'
}

function isQueueFull(err: unknown): boolean {
  return err instanceof Error && err.message === QUEUE_FULL.message
}

// Small work runs inline (a worker hop costs ~40 µs); work above the op's threshold runs on the plan's pool
// under the plan's compute budget. Budget overrun kills the thread (Piscina terminates it on abort) → 422;
// a thread out of memory → 422; a full pool → 503. Dead threads are replaced by Piscina.
export function createDispatcher(pools: PoolSet, metrics: PoolMetrics): Dispatcher {
  // the label lookup is a hash of the label object: resolve each op's inline counter once
  const inlineCounts = new Map<OpName, { inc(): void }>()
  function countInline(name: OpName): void {
    let counter = inlineCounts.get(name)
    if (!counter) {
      counter = batchedChild(metrics.dispatch, { op: name, mode: 'inline' })
      inlineCounts.set(name, counter)
    }
    counter.inc()
  }

  async function inline<N extends OpName>(name: N, input: OpInput<N>): Promise<Dispatched<OpOutput<N>>> {
    countInline(name)
    const started = performance.now()
    const value = (await OPERATIONS[name].run(input as never)) as OpOutput<N>
    return { value, where: 'inline', waitMs: 0, runMs: performance.now() - started }
  }

  async function onPool<T>(
    pool: NamedPool,
    name: OpName,
    task: OpTask,
    budget: number,
    fallback: () => Promise<Dispatched<T>>,
    workspaceId: string,
    reservation?: Reservation,
  ): Promise<Dispatched<T>> {
    if (!pool.admission.start(reservation, workspaceId))
      throw poolFailure(QUEUE_FULL, pool.name, name, budget, metrics)
    const slot = pool.starts.acquire()
    if (slot === undefined) {
      pool.admission.finish(workspaceId)
      throw poolFailure(QUEUE_FULL, pool.name, name, budget, metrics)
    }
    metrics.dispatch.inc({ op: name, mode: 'pool' })
    const submitted = performance.timeOrigin + performance.now()
    let result: OpTaskResult
    const controller = new AbortController()
    const stopWatching = watchBudget(
      pool.starts,
      slot,
      budget,
      Math.max(budget, MIN_QUEUE_WAIT_MS),
      controller,
    )
    try {
      const transferList = task.raw ? [task.raw.buffer as ArrayBuffer] : undefined
      result = await pool.piscina.run({ ...task, slot }, { signal: controller.signal, transferList })
    } catch (err) {
      // a task killed (budget, out of memory) or crashed held its thread from its start until now
      const started = pool.starts.startedAt(slot)
      if (started !== undefined)
        metrics.busy.inc({ pool: pool.name }, Math.max(0, Date.now() - started) / 1000)
      // Too deeply nested to cross the thread boundary (structured clone recurses): every op that takes
      // free-form JSON refuses such depth itself, iteratively and at once, so let its guard answer inline.
      if (err instanceof RangeError) return fallback()
      throw poolFailure(err, pool.name, name, budget, metrics, controller.signal.reason)
    } finally {
      stopWatching()
      pool.starts.release(slot)
      pool.admission.finish(workspaceId)
    }
    const waitMs = Math.max(0, result.startedAt - submitted)
    metrics.wait.observe({ pool: pool.name, op: name }, waitMs / 1000)
    metrics.run.observe({ pool: pool.name, op: name }, result.runMs / 1000)
    metrics.busy.inc({ pool: pool.name }, result.runMs / 1000)
    if (!result.ok) {
      metrics.outcomes.inc({ pool: pool.name, op: name, outcome: 'error' })
      const code = (
        Object.hasOwn(ERRORS, result.error.code) ? result.error.code : 'ERR_INTERNAL'
      ) as ErrorCode
      throw new AppError(
        code,
        result.error.message,
        result.error.details as Record<string, unknown> | undefined,
      )
    }
    metrics.outcomes.inc({ pool: pool.name, op: name, outcome: 'ok' })
    return { value: result.value as T, where: pool.name, waitMs, runMs: result.runMs }
  }

  return {
    run(name, input, ctx) {
      const spec = OPERATIONS[name]
      const heavy = 'heavy' in spec && spec.heavy ? (spec.heavy as (i: unknown) => boolean)(input) : false
      if (ctx.bytes < spec.poolAbove && !heavy) return inline(name, input)
      const pool = pools.pick(ctx.workspaceId, ctx.limits.pool)
      return onPool(
        pool,
        name,
        { op: name, input },
        ctx.limits.compute_budget_ms,
        () => inline(name, input),
        ctx.workspaceId,
        ctx.reservation,
      )
    },
    runRaw(name, bytes, ctx) {
      const pool = pools.pick(ctx.workspaceId, ctx.limits.pool)
      // a raw body is a flat byte string: it always crosses the thread boundary
      return onPool<string>(
        pool,
        name,
        { op: name, raw: bytes },
        ctx.limits.compute_budget_ms,
        () => {
          throw new AppError('ERR_INTERNAL')
        },
        ctx.workspaceId,
        ctx.reservation,
      )
    },
    reserve(ctx, waitMs, op) {
      const pool = pools.pick(ctx.workspaceId, ctx.limits.pool)
      return pool.admission.reserve(ctx.workspaceId, waitMs, () =>
        metrics.outcomes.inc({ pool: pool.name, op, outcome: 'overloaded' }),
      )
    },
    cancel(ctx, reservation) {
      pools.pick(ctx.workspaceId, ctx.limits.pool).admission.cancel(reservation)
    },
  }
}

function poolFailure(
  err: unknown,
  pool: string,
  op: string,
  budget: number,
  metrics: PoolMetrics,
  abortReason?: unknown,
): AppError {
  if (isAbort(err) && abortReason === QUEUE_TIMEOUT) {
    // it never ran: the pool is too busy to start it in time, so this is load, not the request's cost
    metrics.outcomes.inc({ pool, op, outcome: 'overloaded' })
    return new AppError('ERR_OVERLOADED', undefined, { pool }, { 'retry-after': '1' })
  }
  if (isAbort(err)) {
    // Piscina terminates the thread running an aborted task and starts a replacement
    metrics.outcomes.inc({ pool, op, outcome: 'timeout' })
    metrics.restarts.inc({ pool })
    return new AppError(
      'ERR_COMPUTE_LIMIT',
      `The operation exceeded the plan's ${budget} ms compute budget.`,
      {
        reason: 'time',
        budget_ms: budget,
      },
    )
  }
  if (isOom(err)) {
    metrics.outcomes.inc({ pool, op, outcome: 'oom' })
    metrics.restarts.inc({ pool })
    return new AppError('ERR_COMPUTE_LIMIT', "The operation exceeded the plan's memory budget.", {
      reason: 'memory',
    })
  }
  if (isQueueFull(err)) {
    // refused before it ran: no thread was touched
    metrics.outcomes.inc({ pool, op, outcome: 'overloaded' })
    return new AppError('ERR_OVERLOADED', undefined, { pool }, { 'retry-after': '1' })
  }
  metrics.outcomes.inc({ pool, op, outcome: 'crash' })
  metrics.restarts.inc({ pool })
  // the client sees ERR_INTERNAL only; the cause goes to the log with the request id
  return Object.assign(new AppError('ERR_INTERNAL'), { cause: err })
}
