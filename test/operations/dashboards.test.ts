import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { allPanels, concrete, loadDashboards, metricNames, panelQueries, ROOT } from './dashboards.ts'
import {
  alertRules,
  exportedNames,
  JOBS_METRICS,
  PROMETHEUS_METRICS,
  recordingRules,
} from './metric-names.ts'

const dashboards = loadDashboards()
// Grafana's variable syntax, not a template literal
const DATASOURCE_VAR = ['$', '{datasource}'].join('')
const provisioned = parse(
  readFileSync(join(ROOT, 'grafana', 'provisioning', 'datasources', 'prometheus.yml'), 'utf8'),
) as { datasources: { uid: string; type: string; url: string }[] }

describe('Grafana dashboards (structure)', () => {
  it('are the five the on-call rotation uses, each with a unique uid', () => {
    expect(dashboards.map((d) => d.uid).sort()).toEqual([
      'anvil-jobs',
      'anvil-limits',
      'anvil-overview',
      'anvil-pools',
      'anvil-redis',
    ])
    for (const d of dashboards) expect(d.title).toMatch(/^Anvil \/ /)
  })

  it.each(dashboards.map((d) => [d.file, d] as const))('%s: panels are complete and laid out', (_, d) => {
    const panels = allPanels(d)
    const ids = panels.map((p) => p.id)
    expect(new Set(ids).size).toBe(ids.length)
    const cells = new Set<string>()
    for (const p of panels) {
      const { x, y, w, h } = p.gridPos
      expect(x + w, p.title).toBeLessThanOrEqual(24)
      // no two panels cover the same grid cell
      for (let i = x; i < x + w; i++) {
        for (let j = y; j < y + h; j++) {
          expect(cells.has(`${i},${j}`), `${p.title} overlaps at ${i},${j}`).toBe(false)
          cells.add(`${i},${j}`)
        }
      }
      if (p.type === 'row') continue
      expect(p.description, p.title).toBeTruthy()
      expect(p.datasource?.uid, p.title).toBe(DATASOURCE_VAR)
      expect(p.targets?.length, p.title).toBeGreaterThan(0)
      for (const t of p.targets ?? []) {
        expect(t.expr, p.title).toBeTruthy()
        expect(t.datasource?.uid, p.title).toBe(DATASOURCE_VAR)
      }
    }
  })

  it.each(dashboards.map((d) => [d.file, d] as const))('%s: every variable used is defined', (_, d) => {
    const defined = new Set(d.templating.list.map((v) => v.name))
    const ds = d.templating.list.find((v) => v.name === 'datasource') as unknown as {
      type: string
      current: { value: string }
    }
    expect(ds.type).toBe('datasource')
    expect(ds.current.value).toBe(provisioned.datasources[0]!.uid)
    for (const q of panelQueries(d)) {
      for (const [, name] of q.expr.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)) {
        if (!name!.startsWith('__')) expect(defined, `${q.panel}: $${name}`).toContain(name)
      }
      expect(concrete(q.expr)).not.toContain('$')
    }
    for (const v of d.templating.list.filter((v) => v.type === 'query')) {
      expect(v.allValue, v.name).toBe('.*')
    }
  })
})

describe('metric names in dashboards and alert rules', () => {
  let exported: Set<string>
  beforeAll(async () => {
    exported = await exportedNames()
  })
  // recording rules of alerts.yml (the SLO ratios and objectives) count as known once their own
  // expressions read only exported metrics (checked below)
  const recorded = recordingRules()
  const known = (name: string) =>
    exported.has(name) ||
    JOBS_METRICS.includes(name) ||
    PROMETHEUS_METRICS.includes(name) ||
    recorded.some((r) => r.record === name)

  it('every metric a dashboard reads is one the gateway exports', () => {
    const unknown = dashboards.flatMap((d) =>
      panelQueries(d).flatMap((q) =>
        metricNames(q.expr)
          .filter((n) => !known(n))
          .map((n) => `${q.dashboard} › ${q.panel}: ${n}`),
      ),
    )
    expect(unknown).toEqual([])
  })

  it('every metric an alert reads is one the gateway exports', () => {
    const rules = alertRules()
    expect(rules.length).toBeGreaterThanOrEqual(10)
    const unknown = [
      ...rules.map((r) => ({ name: r.alert, expr: r.expr })),
      ...recorded.map((r) => ({ name: r.record, expr: r.expr })),
    ].flatMap((r) =>
      metricNames(r.expr)
        .filter((n) => !known(n))
        .map((n) => `${r.name}: ${n}`),
    )
    expect(unknown).toEqual([])
  })

  it('every alert has a severity, a summary and a runbook section that exists', () => {
    const runbook = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8')
    for (const r of alertRules()) {
      expect(['page', 'warning', 'ticket'], r.alert).toContain(r.labels.severity)
      expect(r.annotations.summary, r.alert).toBeTruthy()
      expect(r.annotations.runbook_url, r.alert).toMatch(
        /^\{\{ \$externalLabels\.runbook_base \}\}#anvil[a-z0-9]+$/,
      )
      // a heading that is just the alert's name is what GitHub turns into that anchor
      const anchor = r.annotations.runbook_url!.split('#')[1]!
      expect(runbook, r.alert).toMatch(new RegExp(`^### ${anchor}$`, 'im'))
    }
  })

  it('the metric-name reader sees through PromQL syntax', () => {
    expect(
      metricNames(
        'sum by (le, route) (rate(a_bucket{x="y{z}", route=~"$route"}[5m])) / ignoring (s) group_left sum(b) or vector(0)',
      ),
    ).toEqual(['a_bucket', 'b'])
  })
})
