import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'
import { createPoolMetrics } from '../../src/exec/metrics.ts'
import { createMetrics } from '../../src/observability/metrics.ts'
import { registerRedisUp } from '../../src/observability/redis-metrics.ts'
import { CATALOG } from '../../src/ops/catalog.ts'
import type { Store } from '../../src/store/types.ts'
import { ROOT } from './dashboards.ts'

// Exported by the job queue and workers (src/jobs/), names agreed with that side; accepted here even while
// they are not registered in this tree yet.
export const JOBS_METRICS = [
  'anvil_jobs_queue_depth',
  'anvil_jobs_duration_seconds_bucket',
  'anvil_jobs_duration_seconds_sum',
  'anvil_jobs_duration_seconds_count',
  'anvil_jobs_failed_total',
  'anvil_jobs_submitted_total',
]

// Prometheus's own series.
export const PROMETHEUS_METRICS = ['up', 'ALERTS']

// Every series name a gateway can export: its registry with the pool metrics and the Redis gauge (which
// only a Redis store registers), histogram and summary names expanded.
export async function exportedNames(): Promise<Set<string>> {
  const metrics = createMetrics()
  createPoolMetrics(metrics.registry, () => [], CATALOG)
  registerRedisUp(metrics.registry, { kind: 'redis', ready: async () => true } as unknown as Store)
  const names = new Set<string>()
  for (const m of await metrics.registry.getMetricsAsJSON()) {
    // the typings say an enum; at run time the type is the exposition format's word
    const type = String(m.type)
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(`${m.name}${s}`)
    else if (type === 'summary') for (const s of ['', '_sum', '_count']) names.add(`${m.name}${s}`)
    else names.add(m.name)
  }
  return names
}

export interface AlertRule {
  alert: string
  record?: undefined
  expr: string
  for?: string
  labels: Record<string, string>
  annotations: Record<string, string>
}

export function alertRules(): AlertRule[] {
  const doc = parse(readFileSync(join(ROOT, 'prometheus', 'alerts.yml'), 'utf8')) as {
    groups: { name: string; rules: (AlertRule | { record: string; expr: string })[] }[]
  }
  // recording rules (the SLO ratios and objectives) are not alerts
  return doc.groups.flatMap((g) => g.rules).filter((r): r is AlertRule => 'alert' in r)
}

export function recordingRules(): { record: string; expr: string }[] {
  const doc = parse(readFileSync(join(ROOT, 'prometheus', 'alerts.yml'), 'utf8')) as {
    groups: { rules: { record?: string; expr: string }[] }[]
  }
  return doc.groups
    .flatMap((g) => g.rules)
    .filter((r): r is { record: string; expr: string } => r.record !== undefined)
}
