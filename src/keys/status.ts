import type { ApiKeyRecord } from '../store/types.ts'

// What a key is at a moment, as lists show it (the console's and the admin API's): revoked, past its
// expiry, replaced by a rotation (and still working for its grace period), or active.
export type KeyStatus = 'active' | 'rotated' | 'expired' | 'revoked'

export const KEY_STATUSES = [
  'active',
  'rotated',
  'expired',
  'revoked',
] as const satisfies readonly KeyStatus[]

export function keyStatus(key: ApiKeyRecord, now: number): KeyStatus {
  if (key.revoked_at && Date.parse(key.revoked_at) <= now) return 'revoked'
  if (key.expires_at && Date.parse(key.expires_at) <= now) return 'expired'
  return key.rotated_to ? 'rotated' : 'active'
}
