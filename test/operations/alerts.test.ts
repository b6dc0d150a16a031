import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'
import { parse } from 'yaml'
import { ROOT } from './dashboards.ts'
import { alertRules } from './metric-names.ts'
import { describePrometheus } from './prometheus.ts'

const run = promisify(execFile)
const DIR = join(ROOT, 'prometheus')

async function promtool(...args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run('promtool', args, { cwd: DIR })
    return stdout + stderr
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string }
    throw new Error(`promtool ${args.join(' ')} failed:\n${e.stdout ?? ''}${e.stderr ?? e.message}`)
  }
}

// The anchors GitHub (and most Markdown renderers) give the headings: lower case, punctuation dropped,
// spaces to hyphens.
function markdownAnchors(markdown: string): string[] {
  return [...markdown.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) =>
    m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^a-z0-9 _-]/g, '')
      .replace(/ /g, '-'),
  )
}

interface RuleTest {
  alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[]
}

describePrometheus('alert rules (promtool)', () => {
  it('alerts.yml is valid', async () => {
    expect(await promtool('check', 'rules', 'alerts.yml')).toMatch(/SUCCESS: \d+ rules found/)
  })

  it('prometheus.yml (the compose stack) is valid and loads alerts.yml', async () => {
    expect(await promtool('check', 'config', 'prometheus.yml')).toMatch(/SUCCESS: 1 rule files found/)
  })

  it('every alert passes its unit tests', async () => {
    expect(await promtool('test', 'rules', 'alerts.test.yml')).toMatch(/SUCCESS/)
  })

  it('every alert links a runbook section of docs/operations.md under the configurable base URL', () => {
    const anchors = markdownAnchors(readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8'))
    for (const rule of alertRules()) {
      expect(rule.annotations.runbook, rule.alert).toBeUndefined()
      const m = /^\{\{ \$externalLabels\.runbook_base \}\}#([a-z0-9-]+)$/.exec(
        rule.annotations.runbook_url ?? '',
      )
      expect(m, `${rule.alert}: runbook_url ${rule.annotations.runbook_url}`).not.toBeNull()
      expect(anchors, `${rule.alert}: no section #${m![1]} in docs/operations.md`).toContain(m![1])
    }
  })

  it('the compose Prometheus sets the runbook base from the environment and sends alerts to Alertmanager', () => {
    const config = parse(readFileSync(join(DIR, 'prometheus.yml'), 'utf8')) as {
      global: { external_labels: Record<string, string> }
      alerting: { alertmanagers: { static_configs: { targets: string[] }[] }[] }
    }
    // biome-ignore lint/suspicious/noTemplateCurlyInString: expanded by Prometheus, as written in the YAML
    expect(config.global.external_labels.runbook_base).toBe('${ANVIL_RUNBOOK_BASE_URL}')
    expect(config.alerting.alertmanagers[0]!.static_configs[0]!.targets).toEqual(['alertmanager:9093'])
  })

  it('every alert has a severity Alertmanager routes: page, warning or ticket', () => {
    for (const rule of alertRules())
      expect(['page', 'warning', 'ticket'], rule.alert).toContain(rule.labels.severity)
  })

  it('every alert is tested both firing and quiet', () => {
    const tests = (
      parse(readFileSync(join(DIR, 'alerts.test.yml'), 'utf8')) as { tests: RuleTest[] }
    ).tests.flatMap((t) => t.alert_rule_test ?? [])
    for (const { alert } of alertRules()) {
      const cases = tests.filter((t) => t.alertname === alert)
      expect(
        cases.some((t) => (t.exp_alerts ?? []).length > 0),
        `${alert} has no firing case`,
      ).toBe(true)
      expect(
        cases.some((t) => (t.exp_alerts ?? []).length === 0),
        `${alert} has no quiet case`,
      ).toBe(true)
    }
  })
})
