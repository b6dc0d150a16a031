import { type EndpointCounts, emptyEndpointCounts } from '../endpoint-usage.ts'
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

// One workspace-month's per-endpoint hash (add-endpoint-usage.lua) ↔ counts. Fields:
// "<endpoint>|ok", "<endpoint>|4xx", "<endpoint>|5xx" and "<endpoint>|l<bucket>" (LATENCY_BOUNDS_MS).
const OUTCOMES = { ok: 'ok', '4xx': 'client_errors', '5xx': 'server_errors' } as const

export function encodeEndpointCounts(name: string, counts: EndpointCounts): (string | number)[] {
  const out: (string | number)[] = []
  for (const [suffix, field] of Object.entries(OUTCOMES)) {
    if (counts[field] > 0) out.push(`${name}|${suffix}`, counts[field])
  }
  counts.latency.forEach((n, i) => {
    if (n > 0) out.push(`${name}|l${i}`, n)
  })
  return out
}

export function decodeEndpointUsage(fields: Record<string, string>): Record<string, EndpointCounts> {
  const out: Record<string, EndpointCounts> = {}
  for (const [field, raw] of Object.entries(fields)) {
    const cut = field.lastIndexOf('|')
    const name = field.slice(0, cut)
    const counter = field.slice(cut + 1)
    if (!Object.hasOwn(out, name)) out[name] = emptyEndpointCounts()
    const counts = out[name]!
    if (counter in OUTCOMES) counts[OUTCOMES[counter as keyof typeof OUTCOMES]] = Number(raw)
    else if (counter.startsWith('l')) {
      const bucket = Number(counter.slice(1))
      if (Number.isInteger(bucket) && bucket >= 0 && bucket < counts.latency.length)
        counts.latency[bucket] = Number(raw)
    }
  }
  return out
}
