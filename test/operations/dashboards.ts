import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

export const ROOT = new URL('../../', import.meta.url).pathname
export const DASHBOARD_DIR = join(ROOT, 'grafana', 'dashboards')

export interface Target {
  refId: string
  expr: string
  datasource?: { type?: string; uid?: string }
}

export interface Panel {
  id: number
  type: string
  title: string
  description?: string
  datasource?: { type?: string; uid?: string }
  gridPos: { h: number; w: number; x: number; y: number }
  targets?: Target[]
  panels?: Panel[]
}

export interface Variable {
  name: string
  type: string
  definition?: string
  query?: unknown
  allValue?: string
}

export interface Dashboard {
  file: string
  uid: string
  title: string
  panels: Panel[]
  templating: { list: Variable[] }
}

export interface PanelQuery {
  dashboard: string
  panel: string
  refId: string
  expr: string
}

export function loadDashboards(): Dashboard[] {
  return readdirSync(DASHBOARD_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, ...JSON.parse(readFileSync(join(DASHBOARD_DIR, file), 'utf8')) }) as Dashboard)
}

// Rows may hold their panels (when collapsed): flatten them.
export function allPanels(d: Dashboard): Panel[] {
  return d.panels.flatMap((p) => [p, ...(p.panels ?? [])])
}

export function panelQueries(d: Dashboard): PanelQuery[] {
  return allPanels(d).flatMap((p) =>
    (p.targets ?? []).map((t) => ({ dashboard: d.title, panel: p.title, refId: t.refId, expr: t.expr })),
  )
}

// The PromQL Grafana would send, with its interval macros at values fit for a 1 s scrape interval and
// every template variable at "All" (its allValue, '.*').
export function concrete(expr: string): string {
  return expr
    .replaceAll('$__rate_interval', '1m')
    .replaceAll('$__interval', '15s')
    .replaceAll('$__range', '5m')
    .replace(/\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/g, '.*')
}

// label_values(metric{...}, label) → the series query Grafana runs for it.
export function variableQuery(v: Variable): string | undefined {
  if (v.type !== 'query' || !v.definition) return undefined
  const m = /^label_values\((.+),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$/.exec(v.definition)
  if (!m) throw new Error(`variable ${v.name}: unsupported query ${v.definition}`)
  return `count by (${m[2]}) (${m[1]})`
}

// Metric names an expression reads (identifiers that are not PromQL keywords, functions or labels).
const PROMQL_WORDS = new Set([
  'sum',
  'max',
  'min',
  'avg',
  'count',
  'by',
  'without',
  'rate',
  'increase',
  'histogram_quantile',
  'or',
  'and',
  'unless',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'vector',
  'le',
  'bool',
  'offset',
])

export function metricNames(expr: string): string[] {
  const withoutStrings = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""')
  const withoutMatchers = withoutStrings.replace(/\{[^}]*\}/g, '{}')
  const withoutGrouping = withoutMatchers.replace(
    /\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g,
    '',
  )
  const withoutRanges = withoutGrouping.replace(/\[[^\]]*\]/g, '')
  const names = withoutRanges.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? []
  return [...new Set(names.filter((n) => !PROMQL_WORDS.has(n) && !/^\d/.test(n)))]
}
