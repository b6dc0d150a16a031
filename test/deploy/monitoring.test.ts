import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { GENERATED, MONITORING_DIR } from '../../scripts/kubernetes-monitoring.ts'
import { build, find, OVERLAYS } from './manifests.ts'
import { ROOT } from './sandbox.ts'

// The PrometheusRule and the dashboards ConfigMap are the files in prometheus/ and grafana/, in the forms
// the Prometheus Operator and Grafana's sidecar read: regenerated here, and compared with the originals
// themselves, so neither side can change alone.

describe('the monitoring component', () => {
  for (const [file, make] of Object.entries(GENERATED)) {
    it(`${file} is what scripts/kubernetes-monitoring.ts makes (run it after editing the originals)`, () => {
      expect(readFileSync(join(MONITORING_DIR, file), 'utf8')).toBe(make())
    })
  }

  const production = build('production')

  it('carries every rule group of prometheus/alerts.yml, unchanged', () => {
    const original = parse(readFileSync(join(ROOT, 'prometheus', 'alerts.yml'), 'utf8')) as {
      groups: unknown[]
    }
    const rule = find(production, 'PrometheusRule', 'anvil').spec as { groups: unknown[] }
    expect(rule.groups).toEqual(original.groups)
  })

  it('carries every dashboard of grafana/dashboards/, byte for byte, with the sidecar label', () => {
    const cm = find(production, 'ConfigMap', 'anvil-grafana-dashboards')
    const dir = join(ROOT, 'grafana', 'dashboards')
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'))
    expect(Object.keys(cm.data as object).sort()).toEqual(files.map((f) => `anvil-${f}`).sort())
    for (const f of files) {
      expect((cm.data as Record<string, string>)[`anvil-${f}`]).toBe(readFileSync(join(dir, f), 'utf8'))
    }
    expect(cm.metadata.labels).toMatchObject({ grafana_dashboard: '1' })
  })

  it('fits each object within what `kubectl apply` and etcd take', () => {
    for (const o of OVERLAYS) {
      for (const m of build(o)) {
        const json = JSON.stringify(m)
        // client-side apply keeps the whole object in one annotation: 256 KiB for all annotations
        expect(json.length, `${o} ${m.kind} ${m.metadata.name}`).toBeLessThan(256 * 1024 - 4096)
      }
    }
  })
})
