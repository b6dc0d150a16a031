import type { Usage, UsageCounts } from '../types.ts'

const COUNTERS = new Set<string>(['requests', 'refused_rate', 'refused_quota'])

const emptyCounts = (): UsageCounts => ({ requests: 0, refused_rate: 0, refused_quota: 0 })

// One month's usage hashes (written by consume.lua), live traffic's and test mode's → Usage. Fields:
// requests / refused_rate / refused_quota for the workspace (or its test mode), k:<key id>:<counter> per
// key, d:<DD> for admitted requests per day (live only in the report); the limiter's rate state (tw,
// tk:<key id>) shares each hash and is not usage.
export function decodeUsage(
  month: string,
  fields: Record<string, string>,
  test: Record<string, string> = {},
): Usage {
  const usage: Usage = { month, workspace: emptyCounts(), test: emptyCounts(), keys: {}, daily: {} }
  decodeInto(usage, usage.workspace, fields, true)
  decodeInto(usage, usage.test, test, false)
  return usage
}

function decodeInto(usage: Usage, counts: UsageCounts, fields: Record<string, string>, daily: boolean): void {
  const { month } = usage
  for (const [field, raw] of Object.entries(fields)) {
    const value = Number(raw)
    if (COUNTERS.has(field)) {
      counts[field as keyof UsageCounts] = value
    } else if (field.startsWith('d:')) {
      if (!daily) continue
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
}
