import { z } from 'zod'
import { CATALOG } from '../ops/catalog.ts'
import type { AnyOp } from '../ops/define.ts'
import { PLAN_NAMES, type PlanName } from './plan-names.ts'

// the names alone live in plan-names.ts, for what must not load the ops (the admin CLI)
export { PLAN_NAMES, type PlanName }

const baseLimits = z.object({
  monthly_quota: z.number().int().min(0),
  key_rate_per_second: z.number().int().min(1),
  workspace_rate_per_second: z.number().int().min(1),
  max_json_bytes: z.number().int().min(1),
  max_binary_bytes: z.number().int().min(1),
  compute_budget_ms: z.number().int().min(1),
  pool: z.enum(['free', 'paid']),
  // what one workspace may hold (tenant-caps.ts): live keys, projects, environments, jobs queued or
  // running, the bytes of one job's result, and the bytes all its jobs keep (inputs, results, errors and
  // each job's record: docs/jobs.md, "Job storage")
  max_keys: z.number().int().min(0),
  max_projects: z.number().int().min(0),
  max_environments: z.number().int().min(0),
  max_jobs_in_flight: z.number().int().min(0),
  max_job_result_bytes: z.number().int().min(1),
  max_job_storage_bytes: z.number().int().min(0),
})

// The caps the ops declare (OpDescriptor.caps, src/ops/define.ts: argon2's memory, a validation's instances,
// ...): columns of the plans table like the others, overridable per workspace, each owned by one op. The
// type names the fixed columns only; an op reads its own caps through opCaps.
const OP_CAPS = CATALOG.ops.flatMap((op) => Object.entries(op.caps ?? {}))
const capColumns = Object.fromEntries(
  OP_CAPS.map(([name, cap]) => [name, z.number().int().min(0).describe(cap.describe)]),
) as Record<never, never>

export const planLimitsSchema = baseLimits.extend(capColumns)
export type PlanLimits = z.infer<typeof baseLimits>

export const overridesSchema = planLimitsSchema.omit({ pool: true }).partial()
export type PlanOverrides = z.infer<typeof overridesSchema>

const KiB = 1024
const MiB = 1024 * KiB

const BASE_PLANS: Record<PlanName, PlanLimits> = {
  free: {
    monthly_quota: 10_000,
    key_rate_per_second: 5,
    workspace_rate_per_second: 10,
    max_json_bytes: 256 * KiB,
    max_binary_bytes: 1 * MiB,
    compute_budget_ms: 1_000,
    pool: 'free',
    max_keys: 25,
    max_projects: 5,
    max_environments: 15,
    max_jobs_in_flight: 10,
    max_job_result_bytes: 1 * MiB,
    max_job_storage_bytes: 16 * MiB,
  },
  pro: {
    monthly_quota: 1_000_000,
    key_rate_per_second: 50,
    workspace_rate_per_second: 100,
    max_json_bytes: 5 * MiB,
    max_binary_bytes: 100 * MiB,
    compute_budget_ms: 10_000,
    pool: 'paid',
    max_keys: 1_000,
    max_projects: 100,
    max_environments: 500,
    max_jobs_in_flight: 100,
    max_job_result_bytes: 32 * MiB,
    max_job_storage_bytes: 256 * MiB,
  },
  business: {
    monthly_quota: 20_000_000,
    key_rate_per_second: 500,
    workspace_rate_per_second: 1_000,
    max_json_bytes: 20 * MiB,
    max_binary_bytes: 1024 * MiB,
    compute_budget_ms: 30_000,
    pool: 'paid',
    max_keys: 10_000,
    max_projects: 1_000,
    max_environments: 5_000,
    max_jobs_in_flight: 1_000,
    max_job_result_bytes: 128 * MiB,
    max_job_storage_bytes: 512 * MiB,
  },
}

// each plan's row, with its default for every op's cap
export const DEFAULT_PLANS: Record<PlanName, PlanLimits> = Object.fromEntries(
  PLAN_NAMES.map((plan) => [
    plan,
    { ...BASE_PLANS[plan], ...Object.fromEntries(OP_CAPS.map(([n, c]) => [n, c[plan]])) },
  ]),
) as Record<PlanName, PlanLimits>

export type PlanTable = Record<PlanName, PlanLimits>

const NO_CAPS: Readonly<Record<string, number>> = Object.freeze({})
const capsByLimits = new WeakMap<PlanLimits, Map<AnyOp, Readonly<Record<string, number>>>>()

// The values of the caps this op declares, for a workspace with these limits (what its run gets as
// ctx.caps). Limits are cached per workspace, so this is a lookup after the first call.
export function opCaps(op: AnyOp, limits: PlanLimits): Readonly<Record<string, number>> {
  if (op.caps === undefined) return NO_CAPS
  let byOp = capsByLimits.get(limits)
  if (!byOp) {
    byOp = new Map()
    capsByLimits.set(limits, byOp)
  }
  let caps = byOp.get(op)
  if (!caps) {
    const row = limits as unknown as Record<string, number | undefined>
    caps = Object.freeze(
      Object.fromEntries(Object.entries(op.caps).map(([name, cap]) => [name, row[name] ?? cap.free])),
    )
    byOp.set(op, caps)
  }
  return caps
}

// A workspace's effective limits: its plan's row with the admin's per-workspace overrides on top.
export function effectiveLimits(plans: PlanTable, plan: PlanName, overrides?: PlanOverrides): PlanLimits {
  return { ...plans[plan], ...stripUndefined(overrides ?? {}) }
}

function stripUndefined<T extends object>(obj: T): Partial<T> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined)) as Partial<T>
}
