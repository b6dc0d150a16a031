import type { PlanName } from './plans.ts'

// Endpoint families a key can be restricted to (API.md's endpoint groups, plus async jobs).
export const FAMILIES = [
  'hash',
  'hmac',
  'jwt',
  'base64',
  'text',
  'url',
  'json',
  'time',
  'cron',
  'id',
  'jobs',
] as const
export type Family = (typeof FAMILIES)[number]

// Families a free workspace cannot use: submitting a job is paid-only (POST /v1/jobs declares paidOnly,
// refused with 403 ERR_KEY_SCOPE on free), so the console does not offer them to a free workspace's keys.
export const PAID_FAMILIES: readonly Family[] = ['jobs']

export function familiesFor(plan: PlanName): readonly Family[] {
  return plan === 'free' ? FAMILIES.filter((f) => !PAID_FAMILIES.includes(f)) : FAMILIES
}
