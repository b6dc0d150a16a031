import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe } from 'vitest'

// Why the tests that need Prometheus's binaries cannot run here, or null when they can. Under CI
// (CI=true, set by .ci/run, which installs Debian's prometheus package) a missing binary is a broken
// machine: that throws, so the run fails loudly instead of skipping.
export function prometheusUnavailable(): string | null {
  const missing = ['prometheus', 'promtool'].filter(
    (bin) => spawnSync(bin, ['--version'], { encoding: 'utf8' }).status !== 0,
  )
  if (missing.length === 0) return null
  const reason = `${missing.join(' and ')} not found on PATH (apt-get install prometheus)`
  if (process.env.CI === 'true') throw new Error(`CI=true but ${reason}`)
  return reason
}

// describe() when Prometheus's binaries (and whatever else `alsoMissing` reports) are there, otherwise
// a skipped block that says why.
export function describePrometheus(name: string, body: () => void, alsoMissing: string | null = null): void {
  const reason = prometheusUnavailable() ?? alsoMissing
  if (reason) {
    process.stderr.write(`skipping "${name}": ${reason}\n`)
    describe.skip(name, body)
    return
  }
  describe(name, body)
}

export interface PromSeries {
  metric: Record<string, string>
  value: [number, string]
}

export interface PromRule {
  name: string
  type: 'alerting' | 'recording'
  health: string
  lastError?: string
}

export interface Prometheus {
  url: string
  query(expr: string): Promise<PromSeries[]>
  // resolves once every target has been scraped successfully `times` times after this call
  scrapes(times: number): Promise<void>
  rules(): Promise<PromRule[]>
  stop(): Promise<void>
}

export interface ScrapeJob {
  job: string
  targets: string[]
  // target labels, as a service discovery adds them (the Prometheus Operator: namespace, pod, …)
  labels?: Record<string, string>
}

function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

async function api<T>(url: string): Promise<T> {
  const res = await fetch(url)
  const body = (await res.json()) as { status: string; data: T; error?: string }
  if (body.status !== 'success') throw new Error(`${url}: ${body.error ?? res.status}`)
  return body.data
}

const live = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL')
})

// A throw-away Prometheus on loopback that scrapes `jobs` every second and evaluates `ruleFiles`.
export async function startPrometheus(jobs: ScrapeJob[], ruleFiles: string[] = []): Promise<Prometheus> {
  const dir = await mkdtemp(join(tmpdir(), 'anvil-prometheus-'))
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: ruleFiles,
    scrape_configs: jobs.map((j) => ({
      job_name: j.job,
      static_configs: [{ targets: j.targets, ...(j.labels ? { labels: j.labels } : {}) }],
    })),
  }
  // JSON is YAML
  await writeFile(join(dir, 'prometheus.yml'), JSON.stringify(config, null, 2))
  const port = await freeLoopbackPort()
  const child = spawn(
    'prometheus',
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  live.add(child)
  let out = ''
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString()
  })
  child.stderr!.on('data', (c: Buffer) => {
    out += c.toString()
  })
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      live.delete(child)
      resolve()
    }),
  )
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 15_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}:\n${out}`)
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    )
    if (ready) break
    if (Date.now() > deadline) throw new Error(`prometheus did not become ready:\n${out}`)
    await new Promise((r) => setTimeout(r, 100))
  }

  async function scrapedSince(since: number): Promise<boolean> {
    const data = await api<{ activeTargets: { health: string; lastScrape: string }[] }>(
      `${url}/api/v1/targets?state=active`,
    )
    return (
      data.activeTargets.length > 0 &&
      data.activeTargets.every((t) => t.health === 'up' && Date.parse(t.lastScrape) > since)
    )
  }

  return {
    url,
    async query(expr) {
      const data = await api<{ resultType: string; result: PromSeries[] }>(
        `${url}/api/v1/query?query=${encodeURIComponent(expr)}`,
      )
      return data.result
    },
    async scrapes(times) {
      for (let i = 0; i < times; i++) {
        const since = Date.now()
        const until = since + 10_000
        while (!(await scrapedSince(since))) {
          if (Date.now() > until) throw new Error(`targets were not scraped in time:\n${out}`)
          await new Promise((r) => setTimeout(r, 100))
        }
      }
    },
    async rules() {
      const data = await api<{ groups: { rules: PromRule[] }[] }>(`${url}/api/v1/rules`)
      return data.groups.flatMap((g) => g.rules)
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM')
      await exited
      await rm(dir, { recursive: true, force: true })
    },
  }
}
