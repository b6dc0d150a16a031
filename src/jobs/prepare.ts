import { prepareBody } from '../../workers/jobs.ts'
import { AppError } from '../errors.ts'
import { failureError } from '../exec/pool-failure.ts'
import type { PoolSet } from '../exec/pools.ts'
import { submit } from '../exec/submit.ts'
import { issuesOf } from '../lib/zod-issues.ts'
import type { PlanLimits } from '../limits/plans.ts'
import { jobBody } from '../ops/jobs/schema.ts'
import { JOB_INPUT_FACTOR, type JobOperation } from './types.ts'

// Below this a body is checked on the event loop (well under a millisecond); above it on a worker thread,
// so a body of tens of megabytes never stalls the gateway.
const INLINE_BELOW = 64 * 1024

export interface PrepareContext {
  workspaceId: string
  limits: PlanLimits
}

// On the plan's pool, through the one submit; a failure is answered by the one table
// (src/exec/pool-failure.ts), the task's own refusal (a 400) included.
async function onThread(pools: PoolSet, bytes: Uint8Array, ctx: PrepareContext): Promise<JobOperation> {
  // a body up to JOB_INPUT_FACTOR times the synchronous limit gets as many times the time to be read
  const budgetMs = ctx.limits.compute_budget_ms * JOB_INPUT_FACTOR
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
    const issues = issuesOf(jobBody.safeParse(undefined).error!)
    throw new AppError('ERR_VALIDATION', 'The body must be a JSON object.', { issues })
  }
  // small: here, its refusal (an AppError) thrown as it is; large: on a thread
  return bytes.length < INLINE_BELOW ? prepareBody(bytes) : onThread(pools, bytes, ctx)
}
