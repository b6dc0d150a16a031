import { AppError } from '../errors.ts'

// The caps on what one workspace holds, named as in the plan table (plans.ts) so that the name in a
// refusal is the name an operator overrides (PLANS, or the workspace's overrides).
export type TenantCap =
  | 'max_keys'
  | 'max_projects'
  | 'max_environments'
  | 'max_jobs_in_flight'
  | 'max_job_storage_bytes'

const WHAT: Record<TenantCap, string> = {
  max_keys: 'live API keys (revoked and expired ones do not count)',
  max_projects: 'projects',
  max_environments: 'environments',
  max_jobs_in_flight: 'jobs queued or running',
  max_job_storage_bytes:
    'bytes of job data (inputs until their job finishes, then results and errors until they expire, and ' +
    "each job's record)",
}

// 409 ERR_CONFLICT {limit, max}: the request is fine, the workspace is full. `more`: what else the client
// needs to act (a byte budget says what is held and what the request needed).
export function capExceeded(limit: TenantCap, max: number, more?: Record<string, number>): AppError {
  const message = `A workspace may hold at most ${max} ${WHAT[limit]}.`
  return new AppError('ERR_CONFLICT', message, { limit, max, ...more })
}

// A key counts against max_keys until it is revoked or has expired.
export function isLiveKey(key: { revoked_at: string | null; expires_at: string | null }, nowIso: string) {
  return key.revoked_at === null && (key.expires_at === null || key.expires_at > nowIso)
}
