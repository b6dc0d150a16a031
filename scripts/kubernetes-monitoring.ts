import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse, stringify } from 'yaml'

// The Prometheus Operator and Grafana-sidecar forms of the alert rules (prometheus/alerts.yml) and the
// dashboards (grafana/dashboards/), for deploy/kubernetes/components/monitoring/. Kustomize reads no file
// outside a kustomization's folder, so the two manifests are generated from the originals and committed;
// test/deploy/monitoring.test.ts regenerates them and fails when they differ. Run after editing either:
//   node scripts/kubernetes-monitoring.ts

const ROOT = fileURLToPath(new URL('../', import.meta.url))
export const MONITORING_DIR = join(ROOT, 'deploy', 'kubernetes', 'components', 'monitoring')

const LABELS = {
  'app.kubernetes.io/name': 'anvil',
  'app.kubernetes.io/instance': 'anvil',
  'app.kubernetes.io/part-of': 'anvil',
  'app.kubernetes.io/managed-by': 'kustomize',
}

function header(source: string): string {
  return `# Generated from ${source} by scripts/kubernetes-monitoring.ts: edit the original and run it again.\n`
}

export function prometheusRule(root = ROOT): string {
  const rules = parse(readFileSync(join(root, 'prometheus', 'alerts.yml'), 'utf8')) as { groups: unknown[] }
  const manifest = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'anvil', labels: LABELS },
    spec: { groups: rules.groups },
  }
  return header('prometheus/alerts.yml') + stringify(manifest, { lineWidth: 0 })
}

// One key per dashboard; the label is the one the Grafana sidecar of kube-prometheus-stack (and of the
// grafana chart, sidecar.dashboards.label) collects, the annotation its folder (folderAnnotation).
export function dashboardsConfigMap(root = ROOT): string {
  const dir = join(root, 'grafana', 'dashboards')
  const data = Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .sort()
      .map((f) => [`anvil-${basename(f)}`, readFileSync(join(dir, f), 'utf8')]),
  )
  const manifest = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'anvil-grafana-dashboards',
      labels: { ...LABELS, grafana_dashboard: '1' },
      annotations: { grafana_folder: 'Anvil' },
    },
    data,
  }
  return header('grafana/dashboards/') + stringify(manifest, { lineWidth: 0 })
}

export const GENERATED = {
  'prometheusrule.yaml': prometheusRule,
  'grafana-dashboards.yaml': dashboardsConfigMap,
} as const

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [file, make] of Object.entries(GENERATED)) writeFileSync(join(MONITORING_DIR, file), make())
}
