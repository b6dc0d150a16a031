import { familyNames } from '../ops/family-names.ts'
import type { PlanName } from './plan-names.ts'

// Endpoint families a key can be restricted to: the ops' families (OpDescriptor.family, in the catalog's
// order; named without loading the ops, src/ops/family-names.ts), plus async jobs.
export const FAMILIES: readonly string[] = [...familyNames(), 'jobs']
export type Family = string

// Families a free workspace cannot use: submitting a job is paid-only (POST /v1/jobs declares paidOnly,
// refused with 403 ERR_KEY_SCOPE on free), so the console does not offer them to a free workspace's keys.
export const PAID_FAMILIES: readonly Family[] = ['jobs']

export function familiesFor(plan: PlanName): readonly Family[] {
  return plan === 'free' ? FAMILIES.filter((f) => !PAID_FAMILIES.includes(f)) : FAMILIES
}
