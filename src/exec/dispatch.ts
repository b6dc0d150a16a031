import { performance } from 'node:perf_hooks'
import type { Task } from '../../workers/protocol.ts'
import type { PlanLimits } from '../limits/plans.ts'
import { opCaps } from '../limits/plans.ts'
import { batchedChild } from '../observability/batched-counter.ts'
import { answerBytes, answerText, parseOpBytes, withAdded } from '../ops/answer.ts'
import type { AnyOp } from '../ops/define.ts'
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

// What a request asks of its op: its input (a body the event loop parsed) or its body's bytes (a body the
// decision handed to the worker, parsed and validated there: src/lib/raw-json.ts), what the route adds to
// it (its path's fields, what a raw-bytes answer asks for), and whether the answer is the op's raw bytes
// (Accept: application/octet-stream) rather than the JSON envelope.
export interface OpWork {
  op: AnyOp
  input?: unknown
  raw?: Uint8Array[]
  added?: Record<string, unknown> | undefined
  octets: boolean
}

// An answer to send as it is: the JSON envelope's text (made inline) or bytes (the envelope made and
// encoded on a thread, or the op's raw bytes).
export type Answer = string | Uint8Array

export interface Dispatched {
  value: Answer
  // for Server-Timing: where it ran and how long it waited and ran (ms)
  where: string
  waitMs: number
  runMs: number
}

export interface Dispatcher {
  // The one way a request's op runs, where its decision says (src/exec/decide.ts, modeFor). Inline: the
  // answer now, with no promise, timing or envelope object on the hot path (or, for an op that is
  // asynchronous itself, JWT, a promise of it); on the pool, through the one submit: a promise of the
  // answer made and encoded on the thread (bytes moved back: a large result is never stringified or encoded
  // on the event loop), with where it ran and how long it waited and ran.
  run(work: OpWork, ctx: DispatchContext): Answer | Promise<Dispatched>
  // a place on the pool this request would use, held while its body arrives: at once, or after waiting
  // up to `waitMs` for one; admitted false when the pool stayed full (refuse it before reading the body)
  // (a refusal counts as an `overloaded` task of `op`, like a full queue at dispatch)
  reserve(
    ctx: Omit<DispatchContext, 'execution'>,
    waitMs: number,
    op: AnyOp,
  ): { reservation: Reservation; admitted: Promise<boolean> }
  // gives a reservation back when its request ends without running its task
  cancel(ctx: Omit<DispatchContext, 'execution'>, reservation: Reservation): void
}

function isPromise(value: unknown): value is Promise<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function'
}

// What the task will hold outside the V8 heap (the pool admits it by that, memory-gate.ts): what its input
// asks, or for a body parsed on the thread the most its caps allow (the whole budget when the op cannot
// say, so it runs alone rather than unaccounted).
function offHeapBytes(
  work: OpWork,
  input: unknown,
  caps: Readonly<Record<string, number>>,
): { memoryBytes: number; memoryBound: boolean } {
  const cost = work.op.cost
  if (cost.memoryBytes === undefined) return { memoryBytes: 0, memoryBound: false }
  if (!work.raw) return { memoryBytes: cost.memoryBytes(input), memoryBound: false }
  return {
    memoryBytes: cost.memoryCap ? cost.memoryCap(caps) : Number.POSITIVE_INFINITY,
    memoryBound: true,
  }
}

// Whether the answer is still to come (pool work, an asynchronous op) rather than there now.
export function pending(answer: Answer | Promise<Dispatched>): answer is Promise<Dispatched> {
  return typeof answer !== 'string' && !(answer instanceof Uint8Array)
}

// Runs each op where its request's decision (src/exec/decide.ts) says: inline on the event loop, or on
// the plan's pool through the one submit (src/exec/submit.ts), under the plan's compute budget. A failed
// task is answered by the one table (src/exec/pool-failure.ts): budget overrun (Piscina kills the
// thread) → 422; a thread out of memory → 422; a full pool → 503. Dead threads are replaced by Piscina.
export function createDispatcher(pools: PoolSet, metrics: PoolMetrics): Dispatcher {
  // the label lookup is a hash of the label object: resolve each op's inline counter once
  const inlineCounts = new Map<string, { inc(): void }>()
  function countInline(name: string): void {
    let counter = inlineCounts.get(name)
    if (!counter) {
      counter = batchedChild(metrics.dispatch, { op: name, mode: 'inline' })
      inlineCounts.set(name, counter)
    }
    counter.inc()
  }

  function answerOf(work: OpWork, value: unknown): Answer {
    return work.octets ? answerBytes(work.op, value, true) : answerText(value)
  }

  // On the event loop: the op's answer now, or (an asynchronous op) a promise of it.
  function inline(work: OpWork, input: unknown, ctx: DispatchContext): Answer | Promise<Dispatched> {
    countInline(work.op.name)
    const value = work.op.run(input, { caps: opCaps(work.op, ctx.limits), tenant: ctx.workspaceId })
    if (!isPromise(value)) return answerOf(work, value)
    const started = performance.now()
    return value.then((v) => ({
      value: answerOf(work, v),
      where: 'inline',
      waitMs: 0,
      runMs: performance.now() - started,
    }))
  }

  async function onPool(work: OpWork, input: unknown, ctx: DispatchContext): Promise<Dispatched> {
    const { op } = work
    const task: Task = {
      kind: 'op',
      op: op.name,
      ...(work.raw ? { raw: work.raw, with: work.added } : { input }),
      octets: work.octets,
      caps: opCaps(op, ctx.limits),
      tenant: ctx.workspaceId,
    }
    const outcome = await submit(pools, task, {
      workspaceId: ctx.workspaceId,
      tier: ctx.limits.pool,
      budgetMs: ctx.limits.compute_budget_ms,
      reservation: ctx.execution.reservation,
      count: { metrics, op: op.name },
      ...offHeapBytes(work, input, task.caps),
    })
    if (outcome.ok) {
      const { reply, pool: where, waitMs, runMs } = outcome
      return { value: reply.bytes!, where, waitMs, runMs }
    }
    // Too deeply nested to cross the thread boundary (structured clone recurses): every op that takes
    // free-form JSON refuses such depth itself, iteratively and at once, so let its guard answer inline.
    if (outcome.failure.kind === 'unclonable') {
      const body = work.raw ? withAdded(parseOpBytes(op, work.raw), work.added) : input
      const answer = inline(work, body, ctx)
      if (pending(answer)) return answer
      return { value: answer, where: 'inline', waitMs: 0, runMs: 0 }
    }
    throw failureError(outcome.failure, { subject: 'The operation', pool: outcome.pool })
  }

  return {
    run(work, ctx) {
      // a raw body is a flat byte string: it always crosses the thread boundary
      if (work.raw) return onPool(work, undefined, ctx)
      const input = withAdded(work.input, work.added)
      if (modeFor(ctx.execution, input) === 'inline') return inline(work, input, ctx)
      // a body parsed with exact numbers holds JSON.rawJSON values, which structured clone refuses: it
      // crosses as its JSON text (which JSON.stringify writes back number for number) and is parsed
      // exactly again on the thread (a heavy json.patch `copy`, every json.validate)
      if (work.op.exactNumbers === true) {
        const raw = [new TextEncoder().encode(JSON.stringify(work.input))]
        return onPool({ ...work, raw }, undefined, ctx)
      }
      return onPool(work, input, ctx)
    },
    reserve(ctx, waitMs, op) {
      return reserve(pools, tenantOf(ctx), waitMs, { metrics, op: op.name })
    },
    cancel(ctx, reservation) {
      cancel(pools, tenantOf(ctx), reservation)
    },
  }
}

function tenantOf(ctx: Omit<DispatchContext, 'execution'>): Tenant {
  return { workspaceId: ctx.workspaceId, tier: ctx.limits.pool }
}
