import { CATALOG } from '../ops/catalog.ts'
import type { PlanName } from './plans.ts'

// Endpoint families a key can be restricted to: the ops' families (OpDescriptor.family, in the catalog's
// order), plus async jobs.
export const FAMILIES: readonly string[] = [...new Set(CATALOG.ops.map((op) => op.family)), 'jobs']
export type Family = string

// Families a free workspace cannot use: submitting a job is paid-only (POST /v1/jobs declares paidOnly,
// refused with 403 ERR_KEY_SCOPE on free), so the console does not offer them to a free workspace's keys.
export const PAID_FAMILIES: readonly Family[] = ['jobs']

export function familiesFor(plan: PlanName): readonly Family[] {
  return plan === 'free' ? FAMILIES.filter((f) => !PAID_FAMILIES.includes(f)) : FAMILIES
}
