import { prepareBody } from '../../workers/jobs.ts'
import { AppError } from '../errors.ts'
import { JOB_SUBMISSION } from '../exec/costs.ts'
import { decideExecution } from '../exec/decide.ts'
import { failureError } from '../exec/pool-failure.ts'
import type { PoolSet } from '../exec/pools.ts'
import { submit } from '../exec/submit.ts'
import { issuesOf, parseInput } from '../lib/zod-issues.ts'
import type { PlanLimits } from '../limits/plans.ts'
import type { Catalog } from '../ops/catalog.ts'
import { jobBodyOf } from '../ops/jobs/schema.ts'
import { JOB_INPUT_FACTOR, type JobOperation } from './types.ts'

const PREPARE_FLOOR_MS = 1_000

export interface PrepareContext {
  workspaceId: string
  limits: PlanLimits
  catalog: Catalog
}

// On the plan's pool, through the one submit; a failure is answered by the one table
// (src/exec/pool-failure.ts), the task's own refusal (a 400) included.
async function onThread(pools: PoolSet, bytes: Uint8Array, ctx: PrepareContext): Promise<JobOperation> {
  // a body up to JOB_INPUT_FACTOR times the synchronous limit gets as many times the time to be read, and
  // at least PREPARE_FLOOR_MS: a body just over the inline bound is read in about a millisecond, but a
  // thread's first task also loads the ops, which is not the tenant's work (a 2 ms plan budget refused a
  // 20 KB job)
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
// 400s, at submission. Where is exec's one decision (src/exec/decide.ts), from the submission's cost model
// (JOB_SUBMISSION, src/exec/costs.ts): a small body here, its refusal (an AppError) thrown as it is; a
// large one on a thread. Resolves with the operation.
export async function prepareJob(
  pools: PoolSet,
  bytes: Uint8Array,
  ctx: PrepareContext,
): Promise<JobOperation> {
  // an empty body is no body, as everywhere else: refused by the schema, not by the JSON parser
  if (bytes.length === 0) {
    const parsed = parseInput(jobBodyOf(ctx.catalog), undefined)
    const issues = parsed.success ? [] : issuesOf(parsed.issues)
    throw new AppError('ERR_VALIDATION', 'The body must be a JSON object.', { issues })
  }
  const decision = decideExecution({
    op: JOB_SUBMISSION,
    limits: ctx.limits,
    declaredBytes: bytes.length,
    contentType: 'application/json',
  })
  return decision.mode === 'inline' ? prepareBody(ctx.catalog, bytes) : onThread(pools, bytes, ctx)
}
