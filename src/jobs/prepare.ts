import { AppError, type ErrorCode, isAppError } from '../errors.ts'
import { PoolTaskError } from '../exec/pool-failure.ts'
import type { PoolSet } from '../exec/pools.ts'
import type { TaskReply } from '../exec/task-types.ts'
import { issuesOf, parseInput } from '../lib/zod-issues.ts'
import type { PlanLimits } from '../limits/plans.ts'
import { knownError, onPool, PoolBusyError } from './run-job.ts'
import { jobBody } from './schema.ts'
import { prepareBody } from './task.ts'
import { JOB_INPUT_FACTOR, type JobError, type JobOperation } from './types.ts'

// Below this a body is checked on the event loop, above it on a worker thread, so a body of tens of
// megabytes never stalls the gateway. Its worst case is a body of exact-number documents (json.diff and
// json.patch keep numbers exact: a parse with a reviver, ~5x JSON.parse) or of unknown fields: ~0.11 ms
// per KiB on a loaded 2-core machine, so 8 KiB stays within a millisecond (it was 64 KiB: 3-9 ms, and
// 33-65 ms while every unknown field got its own did-you-mean, issue 27). A job is a large input's way
// in: most bodies are above this anyway, and a pool hop adds well under a millisecond to a submission.
export const INLINE_BELOW = 8 * 1024
const PREPARE_FLOOR_MS = 1_000

export interface PrepareContext {
  workspaceId: string
  limits: PlanLimits
}

async function onThread(pools: PoolSet, bytes: Uint8Array, ctx: PrepareContext): Promise<TaskReply> {
  const pool = pools.pick(ctx.workspaceId, ctx.limits.pool)
  // a body up to JOB_INPUT_FACTOR times the synchronous limit gets as many times the time to be read, and
  // at least PREPARE_FLOOR_MS: a body just over INLINE_BELOW is read in about a millisecond, but a thread's
  // first task also loads the ops, which is not the tenant's work (a 2 ms plan budget refused a 20 KB job)
  const budget = Math.max(PREPARE_FLOOR_MS, ctx.limits.compute_budget_ms * JOB_INPUT_FACTOR)
  try {
    return await onPool(
      pool,
      { kind: 'job.prepare', raw: bytes },
      { workspaceId: ctx.workspaceId, budgetMs: budget },
    )
  } catch (err) {
    if (err instanceof PoolBusyError) {
      throw new AppError('ERR_OVERLOADED', undefined, { pool: pool.name }, { 'retry-after': '1' })
    }
    const kind = err instanceof PoolTaskError ? err.kind : 'crash'
    if (kind === 'oom') {
      throw new AppError('ERR_COMPUTE_LIMIT', "Reading the job exceeded the plan's memory budget.", {
        reason: 'memory',
      })
    }
    if (kind === 'timeout') {
      throw new AppError('ERR_COMPUTE_LIMIT', `Reading the job exceeded the plan's ${budget} ms budget.`, {
        reason: 'time',
        budget_ms: budget,
      })
    }
    throw Object.assign(new AppError('ERR_INTERNAL'), { cause: err })
  }
}

// The same reply shape inline as from a thread, so both paths end the same way.
function prepareHere(bytes: Uint8Array): TaskReply {
  try {
    return { ok: true, value: prepareBody(bytes), startedAt: 0, runMs: 0 }
  } catch (err) {
    if (!isAppError(err)) throw err
    const error = { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) }
    return { ok: false, error, startedAt: 0, runMs: 0 }
  }
}

// Parses and validates a submitted job body as the synchronous endpoint would its own body: the same
// 400s, at submission. Resolves with the operation.
export async function prepareJob(
  pools: PoolSet,
  bytes: Uint8Array,
  ctx: PrepareContext,
): Promise<JobOperation> {
  // an empty body is no body, as everywhere else: refused by the schema, not by the JSON parser
  if (bytes.length === 0) {
    const parsed = parseInput(jobBody, undefined)
    const issues = parsed.success ? [] : issuesOf(parsed.issues)
    throw new AppError('ERR_VALIDATION', 'The body must be a JSON object.', { issues })
  }
  const reply = bytes.length < INLINE_BELOW ? prepareHere(bytes) : await onThread(pools, bytes, ctx)
  if (reply.ok) return reply.value as JobOperation
  const error = knownError(reply.error as JobError)
  throw new AppError(
    error.code as ErrorCode,
    error.message,
    error.details as Record<string, unknown> | undefined,
  )
}
