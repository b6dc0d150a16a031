import { prepareBody } from '../../workers/jobs.ts'
import { AppError } from '../errors.ts'
import { failureError } from '../exec/pool-failure.ts'
import type { PoolSet } from '../exec/pools.ts'
import { submit } from '../exec/submit.ts'
import { issuesOf, parseInput } from '../lib/zod-issues.ts'
import type { PlanLimits } from '../limits/plans.ts'
import { jobBody } from '../ops/jobs/schema.ts'
import { JOB_INPUT_FACTOR, type JobOperation } from './types.ts'

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

// On the plan's pool, through the one submit; a failure is answered by the one table
// (src/exec/pool-failure.ts), the task's own refusal (a 400) included.
async function onThread(pools: PoolSet, bytes: Uint8Array, ctx: PrepareContext): Promise<JobOperation> {
  // a body up to JOB_INPUT_FACTOR times the synchronous limit gets as many times the time to be read, and
  // at least PREPARE_FLOOR_MS: a body just over INLINE_BELOW is read in about a millisecond, but a thread's
  // first task also loads the ops, which is not the tenant's work (a 2 ms plan budget refused a 20 KB job)
  const budgetMs = Math.max(PREPARE_FLOOR_MS, ctx.limits.compute_budget_ms * JOB_INPUT_FACTOR)
  const outcome = await submit(
    pools,
    { kind: 'job.prepare', raw: bytes },
    { workspaceId: ctx.workspaceId, tier: ctx.limits.pool, budgetMs },
  )
  if (outcome.ok) return outcome.reply.value as JobOperation
  throw failureError(outcome.failure, { subject: 'Reading the job', pool: outcome.pool })
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
  // small: here, its refusal (an AppError) thrown as it is; large: on a thread
  return bytes.length < INLINE_BELOW ? prepareBody(bytes) : onThread(pools, bytes, ctx)
}
