import { execFile, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { ROOT } from './dashboards.ts'

const run = promisify(execFile)
const CONFIG = join(ROOT, 'alertmanager', 'alertmanager.yml')

// Under CI (.ci/run installs Debian's prometheus-alertmanager) a missing amtool is a broken machine: fail.
function amtoolUnavailable(): string | null {
  if (spawnSync('amtool', ['--version'], { encoding: 'utf8' }).status === 0) return null
  const reason = 'amtool not found on PATH (apt-get install prometheus-alertmanager)'
  if (process.env.CI === 'true') throw new Error(`CI=true but ${reason}`)
  return reason
}

async function amtool(...args: string[]): Promise<string> {
  try {
    const { stdout } = await run('amtool', args)
    return stdout
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string }
    throw new Error(`amtool ${args.join(' ')} failed:\n${e.stdout ?? ''}${e.stderr ?? e.message}`)
  }
}

// The receiver a set of alert labels is routed to.
async function routeOf(...labels: string[]): Promise<string> {
  return (await amtool('config', 'routes', 'test', `--config.file=${CONFIG}`, ...labels)).trim()
}

const reason = amtoolUnavailable()
if (reason) process.stderr.write(`skipping "alertmanager.yml (amtool)": ${reason}\n`)

describe.skipIf(reason !== null)('alertmanager.yml (amtool)', () => {
  it('is a valid Alertmanager configuration', async () => {
    expect(await amtool('check-config', CONFIG)).toMatch(/SUCCESS/)
  })

  it('routes by severity: page to "page", warning and ticket to "ticket", anything else to "null"', async () => {
    expect(await routeOf('alertname=AnvilTargetDown', 'severity=page')).toBe('page')
    expect(await routeOf('alertname=AnvilRedisSlow', 'severity=warning')).toBe('ticket')
    expect(await routeOf('alertname=AnvilLatencySLOSlowBurn', 'severity=ticket', 'plan=pro')).toBe('ticket')
    expect(await routeOf('alertname=Watchdog')).toBe('null')
  })

  it('sends nothing until an operator configures a receiver', () => {
    const config = parse(readFileSync(CONFIG, 'utf8')) as { receivers: Record<string, unknown>[] }
    for (const receiver of config.receivers) expect(Object.keys(receiver)).toEqual(['name'])
  })
})
