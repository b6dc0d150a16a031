import type { Usage, UsageCounts } from '../types.ts'

const COUNTERS = new Set<string>(['requests', 'refused_rate', 'refused_quota'])

const emptyCounts = (): UsageCounts => ({ requests: 0, refused_rate: 0, refused_quota: 0 })

// One month's usage hash (written by consume.lua) → Usage. Fields: requests / refused_rate /
// refused_quota for the workspace, k:<key id>:<counter> per key, d:<DD> for admitted requests per day;
// the limiter's rate state (tw, tk:<key id>) shares the hash and is not usage.
export function decodeUsage(month: string, fields: Record<string, string>): Usage {
  const usage: Usage = { month, workspace: emptyCounts(), keys: {}, daily: {} }
  for (const [field, raw] of Object.entries(fields)) {
    const value = Number(raw)
    if (COUNTERS.has(field)) {
      usage.workspace[field as keyof UsageCounts] = value
    } else if (field.startsWith('d:')) {
      usage.daily[`${month}-${field.slice(2)}`] = value
    } else if (field.startsWith('k:')) {
      const cut = field.lastIndexOf(':')
      const keyId = field.slice(2, cut)
      const counter = field.slice(cut + 1)
      if (!COUNTERS.has(counter)) continue
      if (!Object.hasOwn(usage.keys, keyId)) usage.keys[keyId] = emptyCounts()
      usage.keys[keyId]![counter as keyof UsageCounts] = value
    }
  }
  return usage
}
