import { performance } from 'node:perf_hooks'
import type { Task } from '../../workers/protocol.ts'
import { AppError } from '../errors.ts'
import { okEnvelope } from '../lib/envelope.ts'
import type { PlanLimits } from '../limits/plans.ts'
import { batchedChild } from '../observability/batched-counter.ts'
import { OPERATIONS, type OpInput, type OpName, type OpOutput } from '../ops/registry.ts'
import type { Reservation } from './admission.ts'
import { type Execution, modeFor } from './decide.ts'
import type { PoolMetrics } from './metrics.ts'
import { failureError } from './pool-failure.ts'
import type { PoolSet } from './pools.ts'
import { cancel, reserve, submit, type Tenant } from './submit.ts'

export interface DispatchContext {
  workspaceId: string
  limits: PlanLimits
  // the request's one execution decision (src/exec/decide.ts), with its place on the pool if it holds one
  execution: Execution
}

// What a route adds to a raw body on the thread: fields from its path (`with`), and whether the answer is
// the op's raw bytes (Accept: application/octet-stream) rather than the JSON envelope.
export interface RawOptions {
  with?: Record<string, unknown>
  octets?: boolean
}

export interface Dispatched<T> {
  value: T
  // for Server-Timing: where it ran and how long it waited and ran (ms)
  where: string
  waitMs: number
  runMs: number
}

export interface Dispatcher {
  // runs an op inline, now: its value, or a promise of it for an op that is asynchronous itself (JWT). For a
  // request whose decision (modeFor) is inline; no promise, timing or envelope object on the hot path (the
  // workspace and declared size are for a span, when tracing is on)
  inline<N extends OpName>(
    name: N,
    input: OpInput<N>,
    workspaceId: string,
    declaredBytes: number | undefined,
  ): OpOutput<N> | Promise<OpOutput<N>>
  // runs an op where the request's decision says; resolves to its value
  run<N extends OpName>(name: N, input: OpInput<N>, ctx: DispatchContext): Promise<Dispatched<OpOutput<N>>>
  // the same, resolving to the whole success envelope: made, serialized and UTF-8 encoded on the thread
  // when the op ran on the pool (bytes, moved back), so a large result is never stringified or encoded on
  // the event loop; its text when the op ran inline (inline work is small)
  runEnvelope(name: OpName, input: unknown, ctx: DispatchContext): Promise<Dispatched<string | Uint8Array>>
  // a raw JSON body, parsed, validated, joined by what the route adds (`with`), run and serialized on the
  // pool: resolves to the whole success envelope as UTF-8 bytes, or to the op's raw bytes (`octets`), to
  // send as they are
  runRaw(
    name: OpName,
    body: Uint8Array[],
    ctx: DispatchContext,
    options?: RawOptions,
  ): Promise<Dispatched<Uint8Array>>
  // a place on the pool this request would use, held while its body arrives: at once, or after waiting
  // up to `waitMs` for one; admitted false when the pool stayed full (refuse it before reading the body)
  // (a refusal counts as an `overloaded` task of `op`, like a full queue at dispatch)
  reserve(
    ctx: Omit<DispatchContext, 'execution'>,
    waitMs: number,
    op: OpName,
  ): { reservation: Reservation; admitted: Promise<boolean> }
  // gives a reservation back when its request ends without running its task
  cancel(ctx: Omit<DispatchContext, 'execution'>, reservation: Reservation): void
}

// Runs each op where its request's decision (src/exec/decide.ts) says: inline on the event loop, or on
// the plan's pool through the one submit (src/exec/submit.ts), under the plan's compute budget. A failed
// task is answered by the one table (src/exec/pool-failure.ts): budget overrun (Piscina kills the
// thread) → 422; a thread out of memory → 422; a full pool → 503. Dead threads are replaced by Piscina.
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

  async function inline<T>(name: OpName, input: unknown, envelope: boolean): Promise<Dispatched<T>> {
    countInline(name)
    const started = performance.now()
    const value = await (OPERATIONS[name].run as (i: unknown) => unknown)(input)
    const out = (envelope ? okEnvelope(JSON.stringify(value)) : value) as T
    return { value: out, where: 'inline', waitMs: 0, runMs: performance.now() - started }
  }

  async function onPool<T>(
    name: OpName,
    task: Task,
    ctx: DispatchContext,
    fallback: () => Promise<Dispatched<T>>,
  ): Promise<Dispatched<T>> {
    const outcome = await submit(pools, task, {
      workspaceId: ctx.workspaceId,
      tier: ctx.limits.pool,
      budgetMs: ctx.limits.compute_budget_ms,
      reservation: ctx.execution.reservation,
      count: { metrics, op: name },
    })
    if (outcome.ok) {
      const { reply, pool: where, waitMs, runMs } = outcome
      return { value: (reply.bytes ?? reply.json ?? reply.value) as T, where, waitMs, runMs }
    }
    // Too deeply nested to cross the thread boundary (structured clone recurses): every op that takes
    // free-form JSON refuses such depth itself, iteratively and at once, so let its guard answer inline.
    if (outcome.failure.kind === 'unclonable') return fallback()
    throw failureError(outcome.failure, { subject: 'The operation', pool: outcome.pool })
  }

  function dispatch<T>(name: OpName, input: unknown, ctx: DispatchContext, envelope: boolean) {
    if (modeFor(ctx.execution, input) !== 'pool') return inline<T>(name, input, envelope)
    const task: Task = { kind: 'op', op: name, input, envelope }
    return onPool<T>(name, task, ctx, () => inline<T>(name, input, envelope))
  }

  const tenant = (ctx: Omit<DispatchContext, 'execution'>): Tenant => ({
    workspaceId: ctx.workspaceId,
    tier: ctx.limits.pool,
  })

  return {
    inline<N extends OpName>(name: N, input: OpInput<N>) {
      // (workspaceId and declaredBytes: the traced dispatcher's)
      countInline(name)
      return (OPERATIONS[name].run as (i: unknown) => OpOutput<N> | Promise<OpOutput<N>>)(input)
    },
    run<N extends OpName>(name: N, input: OpInput<N>, ctx: DispatchContext) {
      return dispatch<OpOutput<N>>(name, input, ctx, false)
    },
    runEnvelope(name, input, ctx) {
      return dispatch<string | Uint8Array>(name, input, ctx, true)
    },
    runRaw(name, body, ctx, options = {}) {
      // a raw body is a flat byte string: it always crosses the thread boundary
      const task: Task = { kind: 'raw', op: name, raw: body, ...options }
      return onPool<Uint8Array>(name, task, ctx, () => {
        throw new AppError('ERR_INTERNAL')
      })
    },
    reserve(ctx, waitMs, op) {
      return reserve(pools, tenant(ctx), waitMs, { metrics, op })
    },
    cancel(ctx, reservation) {
      cancel(pools, tenant(ctx), reservation)
    },
  }
}
