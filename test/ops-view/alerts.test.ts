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
